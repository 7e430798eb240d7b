/// Read and write permission for one field (a role's `fields` entry) or for every field a role does not list
/// (`additional_fields`). Write permission implies read permission.
public struct FieldPermission: Hashable, Sendable {
    /// Whether the field can be read.
    public var read: Bool
    /// Whether the field can be written (and so also read).
    public var write: Bool

    public init(read: Bool = false, write: Bool = false) {
        self.read = read
        self.write = write
    }

    /// `read || write`: write access implies read access.
    public var canRead: Bool { read || write }

    /// Parses `{"read": <bool>, "write": <bool>}`; a missing key is `false`.
    ///
    /// - Throws: ``RuleError/Code/invalidRole`` for a non-object or a non-boolean permission,
    ///   ``RuleError/Code/unsupported`` for nested `fields` (field rules inside embedded objects).
    package static func parse(_ json: JSONValue, path: String) throws(RuleError) -> FieldPermission {
        guard case .object(let entries) = json else {
            throw RuleError(code: .invalidRole, path: path,
                problem: "a field permission must be an object like {\"read\": true, \"write\": false}")
        }
        var permission = FieldPermission()
        for key in entries.keys.sorted() {
            let keyPath = RuleError.join(path, key)
            switch (key, entries[key]!) {
            case ("read", .bool(let value)): permission.read = value
            case ("write", .bool(let value)): permission.write = value
            case ("read", _), ("write", _):
                throw RuleError(code: .invalidRole, path: keyPath, problem: "a field permission must be true or false")
            case ("fields", _), ("additional_fields", _):
                throw RuleError(code: .unsupported, path: keyPath,
                    problem: "field permissions inside embedded objects are not supported")
            default:
                throw RuleError(code: .invalidRole, path: keyPath,
                    problem: "unknown key \(RuleError.quoted(key)) in a field permission (expected read, write)")
            }
        }
        return permission
    }
}
