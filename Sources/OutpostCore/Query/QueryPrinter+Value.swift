import Foundation

extension QueryPrinter {
    /// A value in the literal syntax the parser reads:
    ///
    /// | value        | printed as                                   |
    /// |--------------|----------------------------------------------|
    /// | null         | `NULL`                                       |
    /// | bool         | `true`, `false`                              |
    /// | int          | `42`, `-7`                                   |
    /// | float/double | shortest round-trip form: `1.5`, `1e-05`, `3.0`, `inf`, `-inf`, `nan` |
    /// | string       | `"…"` with `\\ \" \n \r \t \b \f \uXXXX` escapes |
    /// | data         | `B64"…"`                                     |
    /// | date         | `T<seconds>:<nanoseconds>` since 1970        |
    /// | objectId     | `oid(507f1f77bcf86cd799439011)`              |
    /// | decimal128   | `decimal128(<stringValue>)`                  |
    /// | uuid         | `uuid(…)`, lower-case                        |
    /// | array        | `{a, b}` (a list literal)                    |
    /// | link         | its primary key (comparisons with links compare primary keys) |
    /// | document     | `{"key": value, …}`, sorted; not query syntax, so it fails to parse |
    public static func print(_ value: Value) -> String {
        switch value {
        case .null: "NULL"
        case .bool(let bool): bool ? "true" : "false"
        case .int(let int): String(int)
        case .float(let float): float.description
        case .double(let double): double.description
        case .string(let string): "\"" + escape(string) + "\""
        case .data(let data): "B64\"" + data.base64EncodedString() + "\""
        case .date(let date): timestamp(date)
        case .objectId(let id): "oid(\(id.stringValue))"
        case .decimal128(let decimal): "decimal128(\(decimal.stringValue))"
        case .uuid(let uuid): "uuid(\(uuid.uuidString.lowercased()))"
        case .array(let elements): "{" + elements.map(print).joined(separator: ", ") + "}"
        case .document(let document):
            "{" + document.sortedKeys.map { "\"\(escape($0))\": \(print(document.fields[$0]!))" }
                .joined(separator: ", ") + "}"
        case .link(_, let primaryKey): print(primaryKey)
        }
    }

    /// `T<seconds>:<nanoseconds>` since 1970 (both parts with the same sign).
    public static func timestamp(_ date: Date) -> String {
        let (seconds, nanoseconds) = QueryTimestamp.components(of: date)
        return "T\(seconds):\(nanoseconds)"
    }

    /// Escapes a string for use inside double quotes: backslash, double quote and control characters.
    public static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
