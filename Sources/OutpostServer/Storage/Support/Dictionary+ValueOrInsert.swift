extension Dictionary {
    /// The value stored for `key`, after storing `value` there when there was none: "find or add" in one hash
    /// lookup, through the defaulting subscript's modify accessor (which inserts the default when the key is
    /// absent), where `self[key]` followed by `self[key] = value` hashes the key twice.
    @inline(__always)
    mutating func valueOrInsert(_ value: Value, forKey key: Key) -> Value {
        @inline(__always) func read(_ stored: inout Value) -> Value { stored }
        return read(&self[key, default: value])
    }
}
