import OutpostCore
import Synchronization

/// The encoded downloads of recent changesets, shared by sessions that see the same view, so that a change
/// reaching a hundred sessions with the same subscriptions and user is filtered and written to JSON once.
///
/// An entry is one changeset as one view sees it: its `DownloadChangeset` JSON bytes and instruction count, or
/// nothing when the view sees none of it. Only what depends on the view alone is cached — changesets addressed to
/// one file (compensating writes), changes a session holds back from its uploader, and the download right after a
/// bootstrap (which also looks at the former view) are computed per session.
final class DownloadCache: Sendable {
    struct Entry: Sendable {
        /// The changeset's JSON, nil when the view sees none of its changes.
        var json: [UInt8]?
        var instructionCount: Int
    }

    private struct Key: Hashable {
        var serverVersion: Int64
        var view: DownloadViewKey
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
    }

    private let state = Mutex(State())
    private let maxEntries: Int
    private let maxBytes: Int
    /// Larger changesets (bulk uploads) are computed per session rather than kept.
    private let maxEntryBytes: Int

    init(maxEntries: Int = 16_384, maxBytes: Int = 64 << 20, maxEntryBytes: Int = 1 << 20) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.maxEntryBytes = maxEntryBytes
    }

    /// The cached entry for a changeset and view, or the one `make` computes (then kept).
    func entry(serverVersion: Int64, view: DownloadViewKey, make: () -> Entry) -> Entry {
        let key = Key(serverVersion: serverVersion, view: view)
        if let hit = state.withLock({ $0.entries[key] }) { return hit }
        let entry = make()
        let size = entry.json?.count ?? 0
        guard size <= maxEntryBytes else { return entry }
        state.withLock { state in
            if state.entries.count >= maxEntries || state.bytes + size > maxBytes {
                // Keep the newer half: sessions download recent versions; older ones are recomputed if needed.
                let versions = state.entries.keys.map(\.serverVersion).sorted()
                let cut = versions.isEmpty ? Int64.min : versions[versions.count / 2]
                state.entries = state.entries.filter { $0.key.serverVersion > cut }
                state.bytes = state.entries.values.reduce(0) { $0 + ($1.json?.count ?? 0) }
            }
            if state.entries.updateValue(entry, forKey: key) == nil { state.bytes += size }
        }
        return entry
    }

    /// How many entries are kept (for tests).
    var count: Int { state.withLock { $0.entries.count } }
}

/// Everything a session's view of a changeset depends on: the app's rules and mode, the user's rule context
/// (user, its data, the partition) and the subscription queries. Two sessions with equal keys get the same
/// download for every changeset not addressed to one of them. The hash is computed once.
struct DownloadViewKey: Hashable, Sendable {
    let appId: String
    let rules: RuleSet
    let mode: SyncMode
    let partitionKey: String?
    let context: RuleContext
    let queries: [String: QueryPredicate]
    private let hash: Int

    init(settings: SyncAppSettings, context: RuleContext, queries: [String: QueryPredicate]) {
        appId = settings.appId
        rules = settings.rules
        mode = settings.mode
        partitionKey = settings.partition?.key
        self.context = context
        self.queries = queries
        var hasher = Hasher()
        hasher.combine(appId)
        hasher.combine(rules)
        hasher.combine(mode)
        hasher.combine(partitionKey)
        hasher.combine(context)
        hasher.combine(queries)
        hash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    static func == (a: Self, b: Self) -> Bool {
        a.hash == b.hash && a.appId == b.appId && a.mode == b.mode && a.partitionKey == b.partitionKey
            && a.context == b.context && a.queries == b.queries && a.rules == b.rules
    }
}
