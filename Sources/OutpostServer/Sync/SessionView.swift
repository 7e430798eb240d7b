import OutpostCore

/// What one session may see and write: its subscription queries (flexible) or partition (partition-based), and
/// the role chosen once per collection for the session (reference/sync.md §4.3).
final class SessionView: @unchecked Sendable {
    // Confined to the owning session's task; never shared.
    let settings: SyncAppSettings
    let context: RuleContext
    private(set) var queryVersion: Int64
    private(set) var queries: [String: QueryPredicate]
    private var roles: [String: ChosenRole?] = [:]
    /// What this view's downloads depend on, for sharing them with sessions of equal views (``DownloadCache``).
    private(set) lazy var downloadKey = DownloadViewKey(settings: settings, context: context, queries: queries)
    private let evaluator = QueryEvaluator()

    init(settings: SyncAppSettings, context: RuleContext, queryVersion: Int64 = 0, queries: [String: QueryPredicate] = [:]) {
        self.settings = settings
        self.context = context
        self.queryVersion = queryVersion
        self.queries = queries
    }

    /// A copy with another subscription set (the role choices carry over: they are per session).
    func replacingQueries(version: Int64, _ queries: [String: QueryPredicate]) -> SessionView {
        let view = SessionView(settings: settings, context: context, queryVersion: version, queries: queries)
        view.roles = roles
        return view
    }

    /// The role the session chose for a collection. A class, so that looking it up per object costs one retain:
    /// copying the `Role` struct (a dozen rule expressions) out of a dictionary for every uploaded object was about
    /// 2.5 % of the server's upload time.
    final class ChosenRole {
        let role: Role
        /// ``Role/writesEverything``, decided once.
        let writesEverything: Bool

        init(_ role: Role) {
            self.role = role
            writesEverything = role.writesEverything
        }
    }

    /// The role for a collection (``ChosenRole``), chosen on first use and kept for the session; nil when access is
    /// denied (no role applies, or the first that applies cannot be used with Sync).
    func role(for collection: String) -> ChosenRole? {
        if let chosen = roles[collection] { return chosen }
        let chosen = settings.rules.role(forCollection: collection, context: context, forSync: true).role.map(ChosenRole.init)
        roles[collection] = .some(chosen)
        return chosen
    }

    /// Whether a document matches the session's subscriptions (flexible) or partition (partition-based).
    func matchesQuery(_ collection: String, _ document: Document) -> Bool {
        switch settings.mode {
        case .flexible:
            guard let predicate = queries[collection] else { return false }
            return (try? evaluator.matches(predicate, document)) ?? false
        case .partition:
            guard let key = settings.partition?.key else { return false }
            return (document[key] ?? .null) == (context.partition ?? .null)
        }
    }

    /// Whether the client receives every document of the collection whole, whatever the documents hold: a
    /// flexible-sync query that matches everything (``QueryPredicate/matchesEverything``) and a role that reads
    /// everything (``Role/readsEverything``). Then ``isVisible(_:_:)`` is true and ``readableFields(_:_:only:)``
    /// is the document for every document, without reading it.
    func seesWholeCollection(_ collection: String) -> Bool {
        guard settings.mode == .flexible, queries[collection]?.matchesEverything == true,
            let chosen = role(for: collection)
        else { return false }
        return chosen.role.readsEverything
    }

    /// Whether the client receives the document: it is in the query view and the role may read it.
    func isVisible(_ collection: String, _ document: Document) -> Bool {
        guard matchesQuery(collection, document) else { return false }
        if settings.mode == .partition { return true }
        guard let chosen = role(for: collection) else { return false }
        return chosen.role.canRead(document, context: context)
    }

    /// The fields of a document the role lets the client read.
    func readableFields(_ collection: String, _ document: Document, only names: [String]? = nil) -> Document {
        guard settings.mode == .flexible, let chosen = role(for: collection) else {
            guard let names else { return document }
            return Document(Dictionary(uniqueKeysWithValues: names.compactMap { k in document[k].map { (k, $0) } }))
        }
        // One permission for every field: decided once per document, not once per field.
        let all = chosen.role.hasUniformFieldPermissions && chosen.role.canReadEveryField(document, context: context)
        if all && names == nil { return document }
        let keys = names ?? Array(document.fields.keys)
        var out: [String: Value] = [:]
        for key in keys where all || chosen.role.canRead(field: key, document: document, context: context) {
            out[key] = document[key] ?? .null
        }
        return Document(out)
    }

    /// What the client must be told about one change of the server's history.
    ///
    /// - Parameters:
    ///   - forced: for compensating writes addressed to this client: the object is restored in full, or removed
    ///     when the client may not see it.
    ///   - formerView: the view before the latest bootstrap, for changes the bootstrap may already reflect: an
    ///     object visible there before the change is removed when the change takes it out of this view (the
    ///     bootstrap read the documents after the change, so it did not remove the object itself).
    func instruction(for change: DocumentChange, forced: Bool = false, formerView: SessionView? = nil) -> DownloadInstruction? {
        let collection = change.collection
        let wasVisible = change.before.map { isVisible(collection, $0) } ?? false
        let isVisibleNow = change.after.map { isVisible(collection, $0) } ?? false
        if let after = change.after, isVisibleNow {
            if wasVisible && !forced {
                let fields = readableFields(collection, after, only: change.changedFields)
                if fields.fields.isEmpty { return nil }
                return .upsert(className: collection, primaryKey: change.primaryKey, fields: fields)
            }
            return .upsert(className: collection, primaryKey: change.primaryKey, fields: readableFields(collection, after))
        }
        let wasFormerlyVisible = formerView.map { former in change.before.map { former.isVisible(collection, $0) } ?? false }
        if wasVisible || forced || wasFormerlyVisible == true {
            return .erase(className: collection, primaryKey: change.primaryKey)
        }
        return nil
    }
}
