/// Writes one JSON object's entries straight to UTF-8 bytes, for the hot paths that would otherwise build a
/// ``JSONValue`` tree only to write it out (documents, sync messages, history entries).
///
/// The caller writes the keys in sorted order — the order ``JSONValue/write(to:)`` uses — so the bytes are the
/// same as the tree's; debug builds check the order.
package struct JSONObjectWriter: ~Copyable {
    private var first = true
    #if DEBUG
    private var lastKey: String?
    #endif

    /// Starts an object (`{`).
    package init(_ out: inout [UInt8]) {
        out.append(0x7B)
    }

    /// Writes the separator, the key and the colon; the caller writes the value next.
    package mutating func key(_ key: String, _ out: inout [UInt8]) {
        #if DEBUG
        if let lastKey { assert(lastKey < key, "JSONObjectWriter keys out of order: \(lastKey) before \(key)") }
        lastKey = key
        #endif
        if first { first = false } else { out.append(0x2C) }
        JSONValue.writeString(key, to: &out)
        out.append(0x3A)
    }

    /// ``key(_:_:)`` for a key fixed in the code that needs no escaping: its bytes are copied as they are, without
    /// the per-byte escape check (the history writer writes five keys per stored change).
    package mutating func key(fixed key: StaticString, _ out: inout [UInt8]) {
        #if DEBUG
        let text = key.description
        assert(!text.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C },
               "JSONObjectWriter fixed key needs escaping: \(text)")
        if let lastKey { assert(lastKey < text, "JSONObjectWriter keys out of order: \(lastKey) before \(text)") }
        lastKey = text
        #endif
        if first { first = false } else { out.append(0x2C) }
        out.append(0x22)
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(0x22)
        out.append(0x3A)
    }

    package mutating func int(_ key: String, _ value: Int64, _ out: inout [UInt8]) {
        self.key(key, &out)
        JSONValue.writeInt(value, to: &out)
    }

    package mutating func string(_ key: String, _ value: String, _ out: inout [UInt8]) {
        self.key(key, &out)
        JSONValue.writeString(value, to: &out)
    }

    /// Ends the object (`}`).
    package consuming func end(_ out: inout [UInt8]) {
        out.append(0x7D)
    }
}
