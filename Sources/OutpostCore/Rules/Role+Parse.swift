extension Role {
    private static let knownKeys: Set<String> = [
        "_id", "name", "apply_when", "document_filters", "read", "write", "insert", "delete", "search", "fields",
        "additional_fields",
    ]

    /// Parses a role from its App Services JSON form (see ``Role``).
    ///
    /// - Parameter path: where the role sits, for error messages (e.g. `roles[0]`).
    /// - Throws: ``RuleError`` naming the path: ``RuleError/Code/invalidRole`` for a non-object, a missing or
    ///   empty `name`, an unknown key or a key of the wrong type; the expression codes for bad expressions.
    package static func parse(_ json: JSONValue, path: String) throws(RuleError) -> Role {
        guard case .object(let entries) = json else {
            throw RuleError(code: .invalidRole, path: path,
                problem: "a role must be an object, not \(RuleExpressionParser.describe(json))")
        }
        let at = { (key: String) in RuleError.join(path, key) }
        if let unknown = entries.keys.sorted().first(where: { !knownKeys.contains($0) }) {
            throw RuleError(code: .invalidRole, path: at(unknown), problem: "unknown key \(RuleError.quoted(unknown)) in a role")
        }
        guard let nameJSON = entries["name"] else {
            throw RuleError(code: .invalidRole, path: path, problem: "a role needs a 'name'")
        }
        guard case .string(let name) = nameJSON, !name.isEmpty else {
            throw RuleError(code: .invalidRole, path: at("name"), problem: "a role's name must be a non-empty string")
        }
        var role = Role(name: name)
        if let json = entries["apply_when"] { role.applyWhen = try rule(json, at("apply_when")) }
        if let json = entries["document_filters"] {
            role.documentFilters = try parseDocumentFilters(json, path: at("document_filters"))
        }
        if let json = entries["read"] { role.read = try rule(json, at("read")) }
        if let json = entries["write"] { role.write = try rule(json, at("write")) }
        if let json = entries["insert"] { role.insert = try rule(json, at("insert")) }
        if let json = entries["delete"] { role.delete = try rule(json, at("delete")) }
        if let json = entries["search"] { role.search = try rule(json, at("search")) }
        if let json = entries["fields"] {
            guard case .object(let fields) = json else {
                throw RuleError(code: .invalidRole, path: at("fields"), problem: "'fields' must be an object of field permissions")
            }
            for key in fields.keys.sorted() {
                role.fields[key] = try FieldPermission.parse(fields[key]!, path: RuleError.join(at("fields"), key))
            }
        }
        if let json = entries["additional_fields"] {
            role.additionalFields = try FieldPermission.parse(json, path: at("additional_fields"))
        }
        return role
    }

    /// Parses a role from JSON text.
    ///
    /// - Throws: ``RuleError/Code/invalidRole`` when the text is not JSON, otherwise as `parse(_:path:)`.
    public static func parse(jsonText: String, path: String = "") throws(RuleError) -> Role {
        guard let json = JSONValue.parse(jsonText) else {
            throw RuleError(code: .invalidRole, path: path, problem: "the text is not valid JSON")
        }
        return try parse(json, path: path)
    }

    private static func parseDocumentFilters(_ json: JSONValue, path: String) throws(RuleError) -> DocumentFilters {
        guard case .object(let entries) = json else {
            throw RuleError(code: .invalidRole, path: path,
                problem: "'document_filters' must be an object like {\"read\": <expression>, \"write\": <expression>}")
        }
        var filters = DocumentFilters()
        for key in entries.keys.sorted() {
            let keyPath = RuleError.join(path, key)
            switch key {
            case "read": filters.read = try rule(entries[key]!, keyPath)
            case "write": filters.write = try rule(entries[key]!, keyPath)
            default:
                throw RuleError(code: .invalidRole, path: keyPath,
                    problem: "unknown key \(RuleError.quoted(key)) in document_filters (expected read, write)")
            }
        }
        return filters
    }

    /// A role's expression: `%function` is allowed in roles (the Data API runs the calls; Sync refuses such roles).
    private static func rule(_ json: JSONValue, _ path: String) throws(RuleError) -> RuleExpression {
        try RuleExpression.parse(json, path: path, allowingFunctions: true)
    }
}
