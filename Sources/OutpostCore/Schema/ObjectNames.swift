/// The one rule for class (collection) and field names wherever a name enters the server: sync uploads, the Data
/// API, the admin API and the schema development mode records. A name starting with `$` reads back as an Extended
/// JSON operator (one such class once made every app's recorded schema unreadable), and `.` separates the parts of
/// a field path.
public enum ObjectNames {
    /// The longest name, in UTF-8 bytes.
    public static let maxBytes = 255

    /// Why a class or collection name is invalid, or nil when it is fine: "it <problem>" completes a message.
    public static func problem(withClassName name: String) -> String? {
        if name.isEmpty { return "must not be empty" }
        if name.utf8.first == UInt8(ascii: "$") { return "must not start with '$'" }
        if name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "must not contain control characters" }
        if name.utf8.count > maxBytes { return "must be at most \(maxBytes) bytes long (it has \(name.utf8.count))" }
        return nil
    }

    /// Why a field name is invalid, or nil: a class name's rules, and no `.`.
    public static func problem(withFieldName name: String) -> String? {
        if let problem = problem(withClassName: name) { return problem }
        if name.utf8.contains(UInt8(ascii: ".")) { return "must not contain '.'" }
        return nil
    }
}
