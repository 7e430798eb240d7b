import OutpostCore
import Testing

@Suite struct RuleSetTests {
    static let rules = """
        {"Item": {"roles": [
            {"name": "admin", "apply_when": {"%%user.custom_data.isAdmin": true},
             "document_filters": {"read": true, "write": true}, "read": true, "write": true},
            {"name": "owner-read-write", "apply_when": {},
             "document_filters": {"read": {"ownerId": "%%user.id"}, "write": {"ownerId": "%%user.id"}},
             "read": true, "write": true}]},
         "Secret": {"roles": [
            {"name": "staff", "apply_when": {"%%user.data.email": {"$in": ["boss@example.com"]}},
             "document_filters": {"read": true, "write": false}, "read": true}]},
         "Legacy": {"roles": [
            {"name": "root-owner", "apply_when": {}, "document_filters": {"read": {"%%root.ownerId": "%%user.id"},
             "write": false}, "read": true},
            {"name": "everyone", "apply_when": {}, "document_filters": {"read": true, "write": true}, "read": true}]}}
        """
    static let defaultRule = """
        {"roles": [{"name": "default", "apply_when": {}, "document_filters": {"read": true, "write": true},
                    "insert": true, "delete": true, "read": true, "write": true}]}
        """
    static let user = RuleContext(userId: "u1")
    static let admin = RuleContext(userId: "u2", customData: ["isAdmin": .bool(true)])

    @Test func rolesAreTriedInOrder() throws {
        let ruleSet = try RuleSet.parse(rulesText: Self.rules, defaultRuleText: Self.defaultRule)
        #expect(ruleSet.roles(forCollection: "Item").map(\.name) == ["admin", "owner-read-write"])
        #expect(ruleSet.role(forCollection: "Item", context: Self.admin, forSync: true).role?.name == "admin")
        #expect(ruleSet.role(forCollection: "Item", context: Self.user, forSync: true).role?.name == "owner-read-write")
    }

    @Test func noMatchingRoleMeansNoAccess() throws {
        let ruleSet = try RuleSet.parse(rulesText: Self.rules, defaultRuleText: Self.defaultRule)
        // Secret has its own roles, so the default rule does not apply even when none of them match.
        #expect(ruleSet.role(forCollection: "Secret", context: Self.user, forSync: true) == .noMatchingRole)
        let boss = RuleContext(userId: "u3", userData: ["email": .string("boss@example.com")])
        #expect(ruleSet.role(forCollection: "Secret", context: boss, forSync: true).role?.name == "staff")
        let withoutDefault = try RuleSet.parse(rulesText: Self.rules)
        #expect(withoutDefault.role(forCollection: "Other", context: Self.user, forSync: true) == .noMatchingRole)
        #expect(withoutDefault.role(forCollection: "Other", document: [:], context: Self.user) == nil)
    }

    @Test func defaultRuleCoversCollectionsWithoutRules() throws {
        let ruleSet = try RuleSet.parse(rulesText: Self.rules, defaultRuleText: Self.defaultRule)
        let choice = ruleSet.role(forCollection: "Dog", context: Self.user, forSync: true)
        #expect(choice.role?.name == "default")
        #expect(choice.role?.canWrite([:], context: Self.user) == true)
    }

    /// A chosen role that Sync cannot use denies access; the later role is not tried. Without Sync it is used.
    @Test func syncIncompatibleRoleDeniesAccess() throws {
        let ruleSet = try RuleSet.parse(rulesText: Self.rules)
        let choice = ruleSet.role(forCollection: "Legacy", context: Self.user, forSync: true)
        guard case .notSyncCompatible(let role, let reason) = choice else {
            Issue.record("expected notSyncCompatible, got \(choice)")
            return
        }
        #expect(role.name == "root-owner")
        #expect(choice.role == nil)
        #expect(reason.code == .notSyncCompatible)
        #expect(reason.message == "Invalid rule at rules.Legacy.roles[0].document_filters.read.%%root.ownerId: expansion "
            + "'%%root.ownerId' depends on a document and is not supported with Device Sync")
        #expect(ruleSet.role(forCollection: "Legacy", context: Self.user, forSync: false).role?.name == "root-owner")
    }

    /// Without Sync the role is chosen per document: `apply_when` may read the document.
    @Test func perDocumentRoleForTheDataAPI() throws {
        let ruleSet = try RuleSet.parse(rulesText: """
            [{"database": "app", "collection": "Employee", "roles": [
                {"name": "Employee", "apply_when": {"%%root.ownerId": "%%user.id"}, "insert": false, "delete": false,
                 "read": true, "write": true},
                {"name": "Manager", "apply_when": {"email": "%%user.custom_data.manages"}, "read": true, "write": true}]}]
            """)
        let manager = RuleContext(userId: "m1", customData: ["manages": .array([.string("bob@example.com")])])
        let own: Document = ["ownerId": .string("m1"), "email": .string("m@example.com")]
        let report: Document = ["ownerId": .string("b1"), "email": .string("bob@example.com")]
        let other: Document = ["ownerId": .string("c1"), "email": .string("cy@example.com")]
        #expect(ruleSet.role(forCollection: "Employee", document: own, context: manager)?.name == "Employee")
        #expect(ruleSet.role(forCollection: "Employee", document: report, context: manager)?.name == "Manager")
        #expect(ruleSet.role(forCollection: "Employee", document: other, context: manager) == nil)
        // For Sync, no document is involved: the field-reading apply_when never matches.
        #expect(ruleSet.role(forCollection: "Employee", context: manager, forSync: true) == .noMatchingRole)
    }

    @Test func objectAndArrayFormsAgree() throws {
        let object = try RuleSet.parse(rulesText: #"{"Item": {"roles": [{"name": "all", "read": true}]}}"#)
        let array = try RuleSet.parse(rulesText: """
            [{"database": "db", "collection": "Item", "roles": [{"name": "all", "read": true}]}]
            """)
        #expect(object == array)
        #expect(object.collections["Item"]?.first?.read?.literalValue == true)
        #expect(try RuleSet.parse(rulesText: "{}").collections.isEmpty)
    }

    /// Each malformed rule set with its code and full message.
    @Test(arguments: [
        ("3", nil, RuleError.Code.invalidRuleSet, "Invalid rule at rules: rules must be an object keyed by collection or an array of rules"),
        ("{", nil, .invalidRuleSet, "Invalid rule at rules: the text is not valid JSON"),
        ("{}", "{", .invalidRuleSet, "Invalid rule at default_rule: the text is not valid JSON"),
        (#"{"Item": []}"#, nil, .invalidRuleSet, "Invalid rule at rules.Item: a rule must be an object like {\"roles\": [...]}"),
        (#"{"Item": {"roles": 3}}"#, nil, .invalidRuleSet, "Invalid rule at rules.Item.roles: 'roles' must be an array of roles"),
        (#"{"Item": {"roles": [], "filters": []}}"#, nil, .invalidRuleSet, "Invalid rule at rules.Item.filters: unknown key 'filters' in a rule"),
        (#"[{"roles": []}]"#, nil, .invalidRuleSet, "Invalid rule at rules[0]: a rule must be an object with a 'collection' name and 'roles'"),
        (#"[{"collection": "A", "roles": []}, {"collection": "A", "roles": []}]"#, nil, .invalidRuleSet,
         "Invalid rule at rules[1]: collection 'A' has more than one rule"),
        (#"{"Item": {"roles": [{"name": "a"}, {"name": "a"}]}}"#, nil, .invalidRuleSet,
         "Invalid rule at rules.Item.roles[1].name: role name 'a' is used twice"),
        (#"{"Item": {"roles": ["a"]}}"#, nil, .invalidRole, "Invalid rule at rules.Item.roles[0]: a role must be an object, not a string"),
        (#"[{"collection": "Item", "roles": [{"apply_when": {}}]}]"#, nil, .invalidRole,
         "Invalid rule at rules[0].roles[0]: a role needs a 'name'"),
        ("{}", #"{"roles": [{"name": "x", "bogus": 1}]}"#, .invalidRole,
         "Invalid rule at default_rule.roles[0].bogus: unknown key 'bogus' in a role"),
        ("{}", #"{"roles": [{"name": "x", "document_filters": {"read": {"a": {"$in": 3}}}}]}"#, .invalidOperand,
         "Invalid rule at default_rule.roles[0].document_filters.read.a: $in needs an array, not a number"),
    ] as [(String, String?, RuleError.Code, String)])
    func badRuleSet(rules: String, defaultRule: String?, code: RuleError.Code, message: String) throws {
        let error = try #require(throws: RuleError.self) {
            try RuleSet.parse(rulesText: rules, defaultRuleText: defaultRule)
        }
        #expect(error.code == code, "\(rules)")
        #expect(error.message == message, "\(rules)")
    }
}
