extension RuleSet {
    /// Parses the collection rules and the default rule.
    ///
    /// - Parameters:
    ///   - rules: either an object keyed by collection, `{"Item": {"roles": [...]}}`, or an array of rules
    ///     `[{"database": "db", "collection": "Item", "roles": [...]}]`. Error paths start with `rules`.
    ///   - defaultRule: `{"roles": [...]}`, or nil for none. Error paths start with `default_rule`.
    /// - Throws: ``RuleError``: ``RuleError/Code/invalidRuleSet`` for a bad shape, a collection given twice or
    ///   two roles of one collection with the same name; the role and expression codes for bad roles.
    package static func parse(rules: JSONValue, defaultRule: JSONValue? = nil) throws(RuleError) -> RuleSet {
        var ruleSet = RuleSet()
        switch rules {
        case .object(let entries):
            for collection in entries.keys.sorted() {
                let path = "rules.\(collection)"
                ruleSet.collections[collection] = try parseRule(entries[collection]!, path: path, collection: nil)
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                let path = "rules[\(index)]"
                guard case .object(let entries) = item, case .string(let collection)? = entries["collection"],
                    !collection.isEmpty
                else {
                    throw RuleError(code: .invalidRuleSet, path: path,
                        problem: "a rule must be an object with a 'collection' name and 'roles'")
                }
                guard ruleSet.collections[collection] == nil else {
                    throw RuleError(code: .invalidRuleSet, path: path,
                        problem: "collection \(RuleError.quoted(collection)) has more than one rule")
                }
                ruleSet.collections[collection] = try parseRule(item, path: path, collection: collection)
            }
        default:
            throw RuleError(code: .invalidRuleSet, path: "rules",
                problem: "rules must be an object keyed by collection or an array of rules")
        }
        if let defaultRule {
            ruleSet.defaultRoles = try parseRule(defaultRule, path: "default_rule", collection: nil)
        }
        return ruleSet
    }

    /// Parses the collection rules and the default rule from JSON text (see `parse(rules:defaultRule:)`).
    ///
    /// - Throws: ``RuleError/Code/invalidRuleSet`` when a text is not JSON, otherwise as the JSON variant.
    public static func parse(rulesText: String, defaultRuleText: String? = nil) throws(RuleError) -> RuleSet {
        guard let rules = JSONValue.parse(rulesText) else {
            throw RuleError(code: .invalidRuleSet, path: "rules", problem: "the text is not valid JSON")
        }
        var defaultRule: JSONValue?
        if let defaultRuleText {
            guard let json = JSONValue.parse(defaultRuleText) else {
                throw RuleError(code: .invalidRuleSet, path: "default_rule", problem: "the text is not valid JSON")
            }
            defaultRule = json
        }
        return try parse(rules: rules, defaultRule: defaultRule)
    }

    /// One rule: `{"roles": [...]}` plus, in the array form, `database` and `collection`.
    private static func parseRule(_ json: JSONValue, path: String, collection: String?) throws(RuleError) -> [Role] {
        guard case .object(let entries) = json else {
            throw RuleError(code: .invalidRuleSet, path: path, problem: "a rule must be an object like {\"roles\": [...]}")
        }
        let allowed: Set<String> = collection == nil ? ["roles", "database", "_id"] : ["roles", "database", "collection", "_id"]
        if let unknown = entries.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw RuleError(code: .invalidRuleSet, path: RuleError.join(path, unknown),
                problem: "unknown key \(RuleError.quoted(unknown)) in a rule")
        }
        guard case .array(let items)? = entries["roles"] else {
            throw RuleError(code: .invalidRuleSet, path: RuleError.join(path, "roles"), problem: "'roles' must be an array of roles")
        }
        var roles: [Role] = []
        for (index, item) in items.enumerated() {
            let rolePath = "\(path).roles[\(index)]"
            let role = try Role.parse(item, path: rolePath)
            if roles.contains(where: { $0.name == role.name }) {
                throw RuleError(code: .invalidRuleSet, path: RuleError.join(rolePath, "name"),
                    problem: "role name \(RuleError.quoted(role.name)) is used twice")
            }
            roles.append(role)
        }
        return roles
    }
}
