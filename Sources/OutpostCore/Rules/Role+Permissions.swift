extension Role {
    /// Whether the role can read `document`: it matches `document_filters.read` or `document_filters.write`
    /// (write access implies read access). An absent filter lets every document through.
    public func canRead(_ document: Document, context: RuleContext) -> Bool {
        let read = documentFilters.read?.evaluate(document, context: context) ?? true
        return read || canWrite(document, context: context)
    }

    /// Whether the role can write `document` (checked on the document as it is after the write): it matches
    /// `document_filters.write`. An absent filter lets every document through.
    public func canWrite(_ document: Document, context: RuleContext) -> Bool {
        documentFilters.write?.evaluate(document, context: context) ?? true
    }

    /// Whether the role can insert `document`: the `insert` permission and the write filter both allow it.
    public func canInsert(_ document: Document, context: RuleContext) -> Bool {
        insert.evaluate(document, context: context) && canWrite(document, context: context)
    }

    /// Whether the role can delete `document`: the `delete` permission and the write filter both allow it.
    public func canDelete(_ document: Document, context: RuleContext) -> Bool {
        delete.evaluate(document, context: context) && canWrite(document, context: context)
    }

    /// Whether the role can read a field (a name or a dotted path; its first part decides).
    ///
    /// `_id` is always readable. A field listed in ``fields`` uses its permission; any other field uses
    /// ``additionalFields`` when present, else the top-level ``read`` and ``write``. Write implies read.
    /// Expression permissions are evaluated against `document` when given, else without one.
    public func canRead(field: String, document: Document? = nil, context: RuleContext = RuleContext()) -> Bool {
        let name = Self.topLevel(field)
        if name == "_id" { return true }
        if let permission = fields[name] ?? additionalFields { return permission.canRead }
        return Self.allows(read, document, context) || Self.allows(write, document, context)
    }

    /// Whether the role can write a field (a name or a dotted path; its first part decides).
    ///
    /// A field listed in ``fields`` uses its permission; any other field uses ``additionalFields`` when present,
    /// else the top-level ``write``.
    public func canWrite(field: String, document: Document? = nil, context: RuleContext = RuleContext()) -> Bool {
        if let permission = fields[Self.topLevel(field)] ?? additionalFields { return permission.write }
        return Self.allows(write, document, context)
    }

    private static func topLevel(_ field: String) -> String {
        guard let dot = field.utf8.firstIndex(of: UInt8(ascii: ".")) else { return field }
        return String(field[..<dot])
    }

    /// Whether the role can read every field of `document` other than `_id`, for a role with
    /// ``hasUniformFieldPermissions`` (the top-level `read` or `write` allows it).
    package func canReadEveryField(_ document: Document, context: RuleContext) -> Bool {
        Self.allows(read, document, context) || Self.allows(write, document, context)
    }

    /// Whether the role lets a session read every document and every field of it, whatever the documents hold:
    /// the document filters pass everything (``RuleExpression/isAlwaysTrue``) and the top-level `read` or `write`
    /// allows every field. Subscription bootstraps then send stored documents as they are, without reading them.
    package var readsEverything: Bool {
        let filters = (documentFilters.read.map(\.isAlwaysTrue) ?? true) || (documentFilters.write.map(\.isAlwaysTrue) ?? true)
        let fields = read?.isAlwaysTrue == true || write?.isAlwaysTrue == true
        return filters && fields && hasUniformFieldPermissions
    }

    /// Whether the role allows every insert, delete and field write, whatever the documents hold: no write filter
    /// or one that passes everything, `insert`, `delete` and the top-level `write` always true, and the same
    /// permission for every field. The server's write judge then evaluates nothing per object.
    package var writesEverything: Bool {
        (documentFilters.write.map(\.isAlwaysTrue) ?? true) && insert.isAlwaysTrue && delete.isAlwaysTrue
            && write?.isAlwaysTrue == true && hasUniformFieldPermissions
    }

    /// Whether every field has the same permission (no `fields`, no `additionalFields`): the top-level `read`
    /// and `write` decide for all of them.
    package var hasUniformFieldPermissions: Bool {
        fields.isEmpty && additionalFields == nil
    }

    private static func allows(_ expression: RuleExpression?, _ document: Document?, _ context: RuleContext) -> Bool {
        guard let expression else { return false }
        if let document { return expression.evaluate(document, context: context) }
        return expression.evaluate(context: context)
    }
}
