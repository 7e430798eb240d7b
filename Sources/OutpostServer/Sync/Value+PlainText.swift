import OutpostCore

extension Value {
    /// The primary key's plain text form used in compensating-write reasons and server log lines: ObjectId hex,
    /// an integer, a string, a UUID (reference/sync.md §0.3).
    var plainText: String {
        switch self {
        case .objectId(let v): v.stringValue
        case .int(let v): String(v)
        case .string(let v): v
        case .uuid(let v): v.uuidString.lowercased()
        case .null: "null"
        default: extendedJSON.text
        }
    }
}
