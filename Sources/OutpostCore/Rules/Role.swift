/// An App Services role: when it applies, which documents it may read and write, what it may do with whole
/// documents, and which fields it may read and write.
///
/// ```json
/// { "name": "owner-read-write",
///   "apply_when": {},
///   "document_filters": { "read": {"ownerId": "%%user.id"}, "write": {"ownerId": "%%user.id"} },
///   "read": true, "write": true }
/// ```
///
/// Parse one with ``parse(jsonText:path:)`` (or `parse(_:path:)` from a `JSONValue` inside the package).
/// Defaults for absent keys: `apply_when` `{}` (always), `insert`, `delete` and `search` `true`, top-level
/// `read` and `write` `false`, no document filters (every document passes).
public struct Role: Hashable, Sendable {
    /// Filters that limit which documents the role can read and write.
    public struct DocumentFilters: Hashable, Sendable {
        /// Documents matching it are readable; nil when absent. Sync requires it.
        public var read: RuleExpression?
        /// Documents matching it are writable (and readable); nil when absent. Sync requires it.
        public var write: RuleExpression?

        public init(read: RuleExpression? = nil, write: RuleExpression? = nil) {
            self.read = read
            self.write = write
        }
    }

    /// The role's name, used in compensating-write reasons (`denied by write filter in role "<name>"`).
    public var name: String
    /// When the role applies; `{}` means always.
    public var applyWhen: RuleExpression
    /// Which documents the role can read and write.
    public var documentFilters: DocumentFilters
    /// Read permission for every field not overridden by ``fields`` or ``additionalFields``; nil when absent
    /// (no read permission). Sync requires a boolean literal.
    public var read: RuleExpression?
    /// Write permission (which implies read) for every field not overridden; nil when absent (none).
    /// Sync requires a boolean literal.
    public var write: RuleExpression?
    /// Whether the role can insert documents; `true` when absent.
    public var insert: RuleExpression
    /// Whether the role can delete documents; `true` when absent.
    public var delete: RuleExpression
    /// Whether the role can find documents through search; `true` when absent. Outpost stores it only.
    public var search: RuleExpression
    /// Per-field permissions, keyed by top-level field name; they override ``read`` and ``write``.
    public var fields: [String: FieldPermission]
    /// The permission for fields not in ``fields``; when nil such fields use ``read`` and ``write``.
    public var additionalFields: FieldPermission?

    /// Creates a role; the defaults are those of an absent key.
    public init(
        name: String,
        applyWhen: RuleExpression = .alwaysTrue,
        documentFilters: DocumentFilters = DocumentFilters(),
        read: RuleExpression? = nil,
        write: RuleExpression? = nil,
        insert: RuleExpression = .alwaysTrue,
        delete: RuleExpression = .alwaysTrue,
        search: RuleExpression = .alwaysTrue,
        fields: [String: FieldPermission] = [:],
        additionalFields: FieldPermission? = nil
    ) {
        self.name = name
        self.applyWhen = applyWhen
        self.documentFilters = documentFilters
        self.read = read
        self.write = write
        self.insert = insert
        self.delete = delete
        self.search = search
        self.fields = fields
        self.additionalFields = additionalFields
    }

    /// Why the role cannot be used with Device Sync, or nil when it can.
    ///
    /// Sync needs both document filters, boolean literals for top-level `read` and `write`, an `apply_when`
    /// that reads no document, no `%%root`/`%%prevRoot` anywhere, and no field permission on `_id`.
    public var syncIncompatibility: RuleError? {
        do {
            try checkSyncCompatible()
            return nil
        } catch {
            return error
        }
    }

    /// True when the role can be used with Device Sync (see ``syncIncompatibility``).
    public var isSyncCompatible: Bool { syncIncompatibility == nil }

    /// Throws ``RuleError/Code/notSyncCompatible`` saying why the role cannot be used with Device Sync.
    ///
    /// - Parameter path: where the role sits, for the message (e.g. `Item.roles[1]`).
    public func checkSyncCompatible(path: String = "") throws(RuleError) {
        let at = { (key: String) in RuleError.join(path, key) }
        func fail(_ key: String, _ problem: String) -> RuleError {
            RuleError(code: .notSyncCompatible, path: at(key), problem: "role \"\(name)\" \(problem)")
        }
        if callsFunctions {
            throw fail("", "calls a function (%function), which Device Sync does not do in permissions")
        }
        guard documentFilters.read != nil, documentFilters.write != nil else {
            throw fail("document_filters", "needs both document_filters.read and document_filters.write for Sync")
        }
        if let read, read.literalValue == nil { throw fail("read", "must have a boolean 'read' for Sync") }
        if let write, write.literalValue == nil { throw fail("write", "must have a boolean 'write' for Sync") }
        if fields["_id"] != nil { throw fail("fields._id", "may not have field permissions on '_id' with Sync") }
        if !applyWhen.referencedFields.isEmpty {
            throw fail("apply_when", "has an apply_when that reads document fields, which Sync cannot evaluate")
        }
        for expression in [applyWhen, documentFilters.read!, documentFilters.write!, insert, delete] {
            try expression.checkSyncCompatible()
        }
    }
}

extension Role {
    /// Every expression of the role (fields are booleans and call nothing).
    var expressions: [RuleExpression] {
        [applyWhen, insert, delete, search] + [documentFilters.read, documentFilters.write, read, write].compactMap { $0 }
    }

    /// Whether any of the role's expressions calls a function.
    public var callsFunctions: Bool { expressions.contains { $0.callsFunctions } }

    /// The `%function` calls evaluating the role for `document` may make.
    public func functionCalls(_ document: Document?, context: RuleContext) -> [RuleFunctionCall] {
        expressions.flatMap { $0.functionCalls(document, context: context) }
    }
}
