/// The rules of a service: each collection's roles, in order, and the default rule's roles for collections
/// without their own.
///
/// ```swift
/// let rules = try RuleSet.parse(
///     rulesText: #"{"Item": {"roles": [{"name": "owner", "apply_when": {}, ...}]}}"#,
///     defaultRuleText: #"{"roles": [{"name": "all", ...}]}"#)
/// switch rules.role(forCollection: "Item", context: context, forSync: true) { ... }
/// ```
public struct RuleSet: Hashable, Sendable {
    /// Each collection's roles, in evaluation order.
    public var collections: [String: [Role]]
    /// The default rule's roles, used for every collection without an entry in ``collections``.
    public var defaultRoles: [Role]

    public init(collections: [String: [Role]] = [:], defaultRoles: [Role] = []) {
        self.collections = collections
        self.defaultRoles = defaultRoles
    }

    /// The roles that apply to a collection: its own, or the default rule's when it has none.
    public func roles(forCollection collection: String) -> [Role] {
        collections[collection] ?? defaultRoles
    }

    /// Chooses the role for a sync session (or any request without a particular document), as App Services
    /// does for Device Sync.
    ///
    /// The collection's roles (or the default rule's) are tried in order; the first whose `apply_when` is true
    /// (evaluated without a document) is chosen. None gives ``RoleChoice/noMatchingRole``. With `forSync`, a
    /// chosen role that is not Sync-compatible gives ``RoleChoice/notSyncCompatible(_:reason:)``: access is
    /// denied and later roles are not tried.
    public func role(forCollection collection: String, context: RuleContext, forSync: Bool) -> RoleChoice {
        // A role whose `apply_when` calls a function cannot be chosen by Sync: it stops the search, refused.
        guard let role = roles(forCollection: collection).first(where: {
            (forSync && $0.applyWhen.callsFunctions) || $0.applyWhen.evaluate(context: context)
        })
        else { return .noMatchingRole }
        if forSync, let reason = role.syncIncompatibility {
            return .notSyncCompatible(role, reason: reason)
        }
        return .role(role)
    }

    /// Chooses the role for one document, as App Services does without Sync (Data API): the first role whose
    /// `apply_when` is true for this document, where field names and `%%root` read the document.
    ///
    /// - Returns: nil when no role applies: the request has no access to the document.
    public func role(forCollection collection: String, document: Document, context: RuleContext) -> Role? {
        roles(forCollection: collection).first { $0.applyWhen.evaluate(document, context: context) }
    }

    /// Whether any role calls a function (the Data API then runs the calls a document needs before evaluating).
    public var callsFunctions: Bool {
        defaultRoles.contains { $0.callsFunctions } || collections.values.contains { $0.contains { $0.callsFunctions } }
    }

    /// The `%function` calls that choosing a role for `document` in `collection` and evaluating it may make
    /// (every role's, since the choice depends on their results), without repeats.
    public func functionCalls(forCollection collection: String, document: Document?, context: RuleContext)
        -> [RuleFunctionCall]
    {
        var seen = Set<RuleFunctionCall>()
        return roles(forCollection: collection).flatMap { $0.functionCalls(document, context: context) }
            .filter { seen.insert($0).inserted }
    }
}
