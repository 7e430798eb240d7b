/// An unordered set of named values: an object, an embedded object or a map.
///
/// Keys are kept sorted when printed, so two equal documents always print the same.
public struct Document: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    public var fields: [String: Value]

    public init(_ fields: [String: Value] = [:]) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, Value)...) {
        self.fields = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    public subscript(key: String) -> Value? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    /// The keys in sorted order.
    public var sortedKeys: [String] { fields.keys.sorted() }
}
