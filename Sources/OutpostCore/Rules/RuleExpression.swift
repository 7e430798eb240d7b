/// A parsed rule expression: an App Services "apply when" expression, a document filter (a MongoDB-style
/// match expression), or a permission that is a boolean or an expression.
///
/// ```json
/// {"ownerId": "%%user.id"}
/// {"queryable_str_field": {"$in": ["foo", "bar"]}}
/// {"$or": [{"public": true}, {"members": "%%user.id"}]}
/// {"%%partition": "%%user.id"}
/// true
/// ```
///
/// Parse one with ``parse(jsonText:path:)`` (or `parse(_:path:)` from a `JSONValue` inside the package), then
/// ``evaluate(_:context:)`` it against a document or ``evaluate(context:)`` without one. The semantics follow
/// MongoDB: equality with an array field matches if any element is equal, `{"f": null}` matches a missing or
/// null field, `$ne` and `$nin` match a missing field, numbers compare across int, double and decimal128, and
/// values of different types are neither equal nor ordered. See `docs/rules.md`.
public struct RuleExpression: Hashable, Sendable, CustomStringConvertible {
    let node: Node
    /// The expression as it was written, for printing.
    package let json: JSONValue
    /// Where the first `%%root` or `%%prevRoot` sits (path and expansion), if any.
    let syncIncompatibility: SyncIncompatibility?

    struct SyncIncompatibility: Hashable, Sendable {
        let path: String
        let expansion: String
    }

    indirect enum Node: Hashable, Sendable {
        case constant(Bool)
        case and([Node])
        case or([Node])
        case nor([Node])
        /// A field (or expansion) with its conditions, all of which must hold.
        case match(Subject, [Condition])
    }

    /// What a condition tests: a field of the document (path components) or an expansion's value.
    enum Subject: Hashable, Sendable {
        case field([String])
        case expansion(RuleExpansion)
    }

    /// One condition on a subject.
    indirect enum Condition: Hashable, Sendable {
        case compare(Comparison, Operand)
        case `in`(Operand)
        case notIn(Operand)
        case exists(Bool)
        case not([Condition])
    }

    enum Comparison: String, Hashable, Sendable {
        case eq = "$eq", ne = "$ne", gt = "$gt", gte = "$gte", lt = "$lt", lte = "$lte"
    }

    /// A literal value or an expansion; `list` holds the elements of a `$in`/`$nin` array; `function` is a
    /// `%function` call whose result comes from ``RuleContext/functionResults``.
    indirect enum Operand: Hashable, Sendable {
        case value(Value)
        case expansion(RuleExpansion)
        case list([Operand])
        case function(name: String, arguments: [Operand])
    }

    init(node: Node, json: JSONValue, syncIncompatibility: SyncIncompatibility?) {
        self.node = node
        self.json = json
        self.syncIncompatibility = syncIncompatibility
    }

    /// `true`: always matches (the meaning of `{}`).
    public static let alwaysTrue = RuleExpression(node: .constant(true), json: .bool(true), syncIncompatibility: nil)
    /// `false`: never matches.
    public static let alwaysFalse = RuleExpression(node: .constant(false), json: .bool(false), syncIncompatibility: nil)

    /// The expression as compact JSON text with sorted keys.
    public var description: String { json.text }

    /// `true` or `false` when the expression is written as a boolean literal (`true`, `false`, `"%%true"`,
    /// `"%%false"`); nil for any other expression, including `{}`. Sync requires literals for a role's
    /// top-level `read` and `write`.
    public var literalValue: Bool? {
        switch json {
        case .bool(let value): value
        case .string("%%true"): true
        case .string("%%false"): false
        default: nil
        }
    }

    /// False when the expression uses `%%root` or `%%prevRoot`, which Device Sync cannot evaluate.
    public var isSyncCompatible: Bool { syncIncompatibility == nil }

    /// Throws ``RuleError/Code/notSyncCompatible`` naming the path of the first `%%root`/`%%prevRoot` or
    /// `%function`.
    public func checkSyncCompatible() throws(RuleError) {
        guard let problem = syncIncompatibility else { return }
        if problem.expansion == "%function" {
            throw RuleError(code: .notSyncCompatible, path: problem.path,
                problem: "'%function' calls a function, which Device Sync does not do in permissions")
        }
        throw RuleError(code: .notSyncCompatible, path: problem.path,
            problem: "expansion '\(problem.expansion)' depends on a document and is not supported with Device Sync")
    }

    /// Whether the expression calls a function (`%function`).
    public var callsFunctions: Bool { Self.callsFunctions(node) }

    private static func callsFunctions(_ node: Node) -> Bool {
        switch node {
        case .constant: false
        case .and(let parts), .or(let parts), .nor(let parts): parts.contains(where: callsFunctions)
        case .match(_, let conditions): conditions.contains(where: callsFunctions)
        }
    }

    private static func callsFunctions(_ condition: Condition) -> Bool {
        switch condition {
        case .compare(_, let operand), .in(let operand), .notIn(let operand): callsFunctions(operand)
        case .exists: false
        case .not(let inner): inner.contains(where: callsFunctions)
        }
    }

    private static func callsFunctions(_ operand: Operand) -> Bool {
        switch operand {
        case .value, .expansion: false
        case .list(let items): items.contains(where: callsFunctions)
        case .function: true
        }
    }

    /// True when the expression matches every document in every context whatever it holds: `true`, `"%%true"`,
    /// `{}`, and `$and`/`$or` built only from those. False for anything that reads a field or an expansion, even
    /// when it would match everything in practice.
    package var isAlwaysTrue: Bool { Self.isAlwaysTrue(node) }

    private static func isAlwaysTrue(_ node: Node) -> Bool {
        switch node {
        case .constant(let value): value
        case .and(let parts): parts.allSatisfy(isAlwaysTrue)
        case .or(let parts): parts.contains(where: isAlwaysTrue)
        case .nor, .match: false
        }
    }

    /// True when the expression reads no document field (and no `%%root`/`%%prevRoot`): its value depends
    /// on the context only, so it can be evaluated once per session (`apply_when` for Sync, PBS permissions).
    public var isDocumentIndependent: Bool { isSyncCompatible && referencedFields.isEmpty }

    /// The top-level names of the document fields the expression reads (`address` for `address.city`),
    /// including those read through `%%root.<field>`. Sync uses this to check that a filter reads only
    /// queryable fields.
    public var referencedFields: Set<String> {
        var fields: Set<String> = []
        Self.collectFields(node, into: &fields)
        return fields
    }

    private static func collectFields(_ node: Node, into fields: inout Set<String>) {
        switch node {
        case .constant: break
        case .and(let parts), .or(let parts), .nor(let parts):
            for part in parts { collectFields(part, into: &fields) }
        case .match(let subject, let conditions):
            switch subject {
            case .field(let path): fields.insert(path[0])
            case .expansion(let expansion): collect(expansion, into: &fields)
            }
            for condition in conditions { collect(condition, into: &fields) }
        }
    }

    private static func collect(_ condition: Condition, into fields: inout Set<String>) {
        switch condition {
        case .compare(_, let operand), .in(let operand), .notIn(let operand): collect(operand, into: &fields)
        case .exists: break
        case .not(let inner): for part in inner { collect(part, into: &fields) }
        }
    }

    private static func collect(_ operand: Operand, into fields: inout Set<String>) {
        switch operand {
        case .value: break
        case .expansion(let expansion): collect(expansion, into: &fields)
        case .list(let items), .function(_, let items): for item in items { collect(item, into: &fields) }
        }
    }

    private static func collect(_ expansion: RuleExpansion, into fields: inout Set<String>) {
        if case .root(let path) = expansion, let first = path.first { fields.insert(first) }
    }
}
