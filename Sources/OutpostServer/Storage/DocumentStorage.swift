import Foundation
import OutpostCore

/// Each app's documents and their history: the transactions that write both, the changesets with their
/// increasing server versions, the client files that identify synced files, and the app's settings.
///
/// Its own protocol because this is the part with a concurrency contract of its own (per-app transactions, the
/// server as sequencer) and the one that sync, the Data API and the admin API's data routes use. Client files
/// belong here because they are sync identities, whose progress a transaction records
/// (``StorageTransaction/setIntegratedClientVersion(fileIdent:_:)``); settings because what they hold describes the
/// documents (the schema sync inferred from them). Part of ``ServerStorage``; every method is safe to call from
/// many tasks at once.
///
/// **Hooks with defaults.** Some requirements have a default implementation in terms of the others:
/// ``queuedTransaction(appId:_:)``, the paged reads ``documents(appId:collection:after:limit:)`` and
/// ``documentTexts(appId:collection:after:limit:)``, the query read
/// ``documents(appId:collection:matching:after:limit:)``, ``createFieldIndexes(_:)`` and
/// ``documentCount(appId:collection:)``. A driver implements them only to do better than the default; the server's
/// sync, Data API and admin API call them, an application has no reason to. They are public all the same: Swift
/// gives a requirement its protocol's access, and drivers outside this module (OutpostServerTesting's in-memory
/// and forwarding storages, a third party's) must be able to implement them.
public protocol DocumentStorage: Sendable {
    // MARK: Transactions and history

    /// Runs `body` in one atomic transaction of the app: everything it writes becomes visible together, or
    /// nothing does when it throws (the body's error is rethrown unchanged). Transactions of one app never
    /// overlap, also across server processes; transactions of different apps run concurrently. (The SQLite driver
    /// lets the next body run while the previous writes commit, reading them as if committed; it returns once its
    /// own writes are durable.)
    ///
    /// The body may await anything, including other methods of this storage, but must not start another
    /// transaction of the same app (it would wait for itself). The transaction must not be used after the body
    /// returns (that traps).
    func transaction<T: Sendable>(
        appId: String,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> T

    /// Runs `body` like ``transaction(appId:_:)``, but returns once its writes are queued for commit, so that the
    /// app's next transaction can run its body — seeing these writes — while they commit. Act on the body's
    /// decisions only after ``PendingTransaction/committed()`` returned. Commits keep the order of the bodies;
    /// when one fails, the later ones that read its writes fail too. (A hook with a default, which commits before
    /// it returns; sync uploads use it.)
    func queuedTransaction<T: Sendable>(
        appId: String,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> PendingTransaction<T>

    /// The highest server version of the app's history (0 when empty).
    func latestServerVersion(appId: String) async throws -> Int64

    /// Changesets with `after < serverVersion <= upTo`, in increasing version order, at most `limit` of them.
    /// Page by passing the last returned version as the next `after`.
    func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset]

    /// A stream of `(appId, serverVersion)` announcements of committed transactions that appended history (one
    /// per transaction, with its last version), from this process and — for drivers that share a database between
    /// processes — from every other server process. Announcements made after this method returns are delivered;
    /// treat them as hints and read ``latestServerVersion(appId:)`` after a reconnect.
    func changeNotifications() async throws -> AsyncStream<ChangeNotification>

    // MARK: Documents

    /// One document by primary key (outside any transaction).
    func document(appId: String, collection: String, primaryKey: Value) async throws -> Document?

    /// Every document of a collection, in primary-key order.
    func documents(appId: String, collection: String) async throws -> [Document]

    /// One page of a collection's documents in the order of their stored keys (``PrimaryKeyText``, compared byte
    /// by byte): at most `limit` of those whose key comes after `after` (from the first when nil), each with its
    /// key, to pass as the next page's `after`. A page shorter than `limit` is the last.
    ///
    /// A hook with a default (which pages ``documents(appId:collection:)``): subscription bootstraps read
    /// collections this way, so a large collection is never in memory all at once. Each page is read on its own:
    /// pages reflect the committed state when each is read.
    func documents(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocument]

    /// One page of the collection's documents that match `query`, in the order of
    /// ``documents(appId:collection:after:limit:)``: at most `limit` of the matches whose key comes after `after` (from
    /// the first when nil). A page shorter than `limit` is the last.
    ///
    /// Drivers look the query's conditions up in the database's indexes (``createFieldIndexes(_:)``, and the primary
    /// key for `_id`) and check ``DocumentQuery/matches(_:)`` on what they read, so a page costs about the documents
    /// it returns, not the collection. The Data API reads this way.
    func documents(
        appId: String, collection: String, matching query: DocumentQuery, after: String?, limit: Int
    ) async throws -> [StoredDocument]

    /// Creates, when missing, the indexes that let ``documents(appId:collection:matching:after:limit:)`` look up
    /// equality on these top-level fields, in every app and collection. Names a driver cannot index (anything but
    /// ASCII letters, digits and `_`) are left out; queries on them read more documents. Safe to repeat.
    func createFieldIndexes(_ fields: Set<String>) async throws

    /// The same page as ``documents(appId:collection:after:limit:)``, each document as Extended JSON text instead
    /// of a ``Document``: for drivers that store the server's own text (SQLite), the stored bytes, not parsed.
    ///
    /// A hook with a default (which writes each document of the page): a bootstrap whose session sees the whole
    /// collection sends these texts as they are.
    func documentTexts(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocumentText]

    /// The names of the app's collections that hold at least one document.
    func collections(appId: String) async throws -> [String]

    /// How many documents a collection holds, read without holding them (the admin API's counts).
    func documentCount(appId: String, collection: String) async throws -> Int

    // MARK: Client files (sync)

    /// Allocates a new client file identity with a random salt for a user's synced file.
    func allocateClientFile(appId: String, userId: String) async throws -> ClientFile
    func clientFile(appId: String, ident: Int64) async throws -> ClientFile?

    // MARK: Settings

    /// A small named value per app (for example the inferred schema), or nil. Values are stored as Extended
    /// JSON, so every ``Value`` round-trips exactly.
    func setting(appId: String, key: String) async throws -> Value?
    /// Stores or replaces a setting.
    func setSetting(appId: String, key: String, value: Value) async throws
    /// Replaces a setting with what `update` makes of its current value (nil: leave it as it is), as one atomic step:
    /// two updates of the same setting — also from two server processes on one database — never overwrite each
    /// other's changes (the second sees the first's value). Returns the setting's value afterwards.
    func updateSetting(appId: String, key: String, _ update: @escaping @Sendable (Value?) throws -> Value?) async throws -> Value?
}

extension DocumentStorage {
    /// Runs ``transaction(appId:_:)`` and returns once it committed.
    public func queuedTransaction<T: Sendable>(
        appId: String,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> PendingTransaction<T> {
        PendingTransaction(committed: try await transaction(appId: appId, body))
    }

    /// Filters pages of ``documents(appId:collection:after:limit:)`` (the in-memory test storage; drivers of the
    /// server's own databases look the conditions up in SQL instead).
    public func documents(
        appId: String, collection: String, matching query: DocumentQuery, after: String?, limit: Int
    ) async throws -> [StoredDocument] {
        let limit = max(0, limit)
        var found: [StoredDocument] = []
        var cursor = after
        while found.count < limit {
            let page = try await documents(appId: appId, collection: collection, after: cursor, limit: limit)
            found += page.lazy.filter { query.matches($0.document) }.prefix(limit - found.count)
            guard page.count == limit, let last = page.last else { break }
            cursor = last.key
        }
        return found
    }

    /// Creates nothing (storages without indexes).
    public func createFieldIndexes(_ fields: Set<String>) async throws {}

    /// Counts page by page (drivers of the server's own databases count with one query).
    public func documentCount(appId: String, collection: String) async throws -> Int {
        var count = 0
        var after: String?
        while true {
            let page = try await documents(appId: appId, collection: collection, after: after, limit: 1000)
            count += page.count
            guard page.count == 1000, let last = page.last else { return count }
            after = last.key
        }
    }

    /// Writes each document of ``documents(appId:collection:after:limit:)``'s page (drivers whose stored form is
    /// not the server's own text, such as PostgreSQL's `jsonb`, and the in-memory test storage).
    public func documentTexts(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocumentText] {
        try await documents(appId: appId, collection: collection, after: after, limit: limit).map {
            StoredDocumentText(key: $0.key, text: $0.document.extendedJSONText)
        }
    }

    /// Pages ``documents(appId:collection:)`` (drivers of the server's own databases read each page with one
    /// query instead).
    public func documents(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocument] {
        let keyed = try await documents(appId: appId, collection: collection).compactMap { document -> StoredDocument? in
            guard let id = document["_id"] else { return nil }
            let key = PrimaryKeyText.make(id)
            if let after, !after.utf8.lexicographicallyPrecedes(key.utf8) { return nil }
            return StoredDocument(key: key, document: document)
        }
        return Array(keyed.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.prefix(max(0, limit)))
    }
}
