import Foundation
import OutpostCore

/// Where the server keeps everything: each app's documents, users, refresh sessions, API keys, client files,
/// the change history with its increasing server versions, and the server log.
///
/// Two drivers implement it — ``SQLiteStorage`` (the embedded default) and ``PostgresStorage`` — and one
/// conformance suite (`StorageConformance` in OutpostServerTesting) runs against both.
///
/// Every method is safe to call from many tasks at once. Writes to documents and history happen only inside
/// ``transaction(appId:_:)``, which the drivers serialise per app (across processes, for PostgreSQL): the server
/// is the sequencer, and a transaction sees and assigns server versions one after another.
public protocol ServerStorage: Sendable {
    /// Creates tables and indexes when they do not exist yet. Called once before any other method.
    func prepare() async throws

    /// Releases connections. No method may be called afterwards.
    func close() async throws

    // MARK: Users, sessions, API keys

    /// Stores a new user. Throws ``StorageError/Code/duplicate`` when the id or (provider, identity) exists.
    func insertUser(_ user: StoredUser) async throws
    func user(appId: String, id: String) async throws -> StoredUser?
    func user(appId: String, provider: String, identity: String) async throws -> StoredUser?
    /// Replaces a stored user (matched by app and id). Throws ``StorageError/Code/notFound`` when missing.
    func updateUser(_ user: StoredUser) async throws
    /// Deletes a user with their sessions and API keys; returns whether the user existed.
    @discardableResult func deleteUser(appId: String, id: String) async throws -> Bool
    func users(appId: String) async throws -> [StoredUser]

    func insertSession(_ session: StoredSession) async throws
    func session(appId: String, id: String) async throws -> StoredSession?
    @discardableResult func deleteSession(appId: String, id: String) async throws -> Bool

    func insertAPIKey(_ key: StoredAPIKey) async throws
    func apiKeys(appId: String, userId: String) async throws -> [StoredAPIKey]
    func apiKey(appId: String, id: String) async throws -> StoredAPIKey?
    @discardableResult func deleteAPIKey(appId: String, id: String) async throws -> Bool
    /// Replaces a stored API key (same app and id) in place; false when there is none.
    @discardableResult func updateAPIKey(_ key: StoredAPIKey) async throws -> Bool

    // MARK: Client files (sync)

    /// Allocates a new client file identity with a random salt for a user's synced file.
    func allocateClientFile(appId: String, userId: String) async throws -> ClientFile
    func clientFile(appId: String, ident: Int64) async throws -> ClientFile?

    // MARK: Documents and history

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
    /// when one fails, the later ones that read its writes fail too. (Outpost-internal; the default commits
    /// before it returns.)
    func queuedTransaction<T: Sendable>(
        appId: String,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> PendingTransaction<T>

    /// The highest server version of the app's history (0 when empty).
    func latestServerVersion(appId: String) async throws -> Int64

    /// Changesets with `after < serverVersion <= upTo`, in increasing version order, at most `limit` of them.
    /// Page by passing the last returned version as the next `after`.
    func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset]

    /// One document by primary key (outside any transaction).
    func document(appId: String, collection: String, primaryKey: Value) async throws -> Document?

    /// Every document of a collection, in primary-key order.
    func documents(appId: String, collection: String) async throws -> [Document]

    /// One page of a collection's documents in the order of their stored keys (``PrimaryKeyText``, compared byte
    /// by byte): at most `limit` of those whose key comes after `after` (from the first when nil), each with its
    /// key, to pass as the next page's `after`. A page shorter than `limit` is the last.
    ///
    /// Outpost-internal (subscription bootstraps read collections this way, so a large collection is never in
    /// memory all at once). Each page is read on its own: pages reflect the committed state when each is read.
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
    /// Outpost-internal: a bootstrap whose session sees the whole collection sends these texts as they are.
    func documentTexts(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocumentText]

    /// The names of the app's collections that hold at least one document.
    func collections(appId: String) async throws -> [String]

    /// How many documents a collection holds, read without holding them (the admin API's counts).
    func documentCount(appId: String, collection: String) async throws -> Int

    /// A stream of `(appId, serverVersion)` announcements of committed transactions that appended history (one
    /// per transaction, with its last version), from this process and — for drivers that share a database between
    /// processes — from every other server process. Announcements made after this method returns are delivered;
    /// treat them as hints and read ``latestServerVersion(appId:)`` after a reconnect.
    func changeNotifications() async throws -> AsyncStream<ChangeNotification>

    // MARK: Settings and log

    /// A small named value per app (for example the inferred schema), or nil. Values are stored as Extended
    /// JSON, so every ``Value`` round-trips exactly.
    func setting(appId: String, key: String) async throws -> Value?
    /// Stores or replaces a setting.
    func setSetting(appId: String, key: String, value: Value) async throws
    /// Replaces a setting with what `update` makes of its current value (nil: leave it as it is), as one atomic step:
    /// two updates of the same setting — also from two server processes on one database — never overwrite each
    /// other's changes (the second sees the first's value). Returns the setting's value afterwards.
    func updateSetting(appId: String, key: String, _ update: @escaping @Sendable (Value?) throws -> Value?) async throws -> Value?

    /// Appends a record to the server log.
    func appendLog(_ record: LogRecord) async throws
    /// Log records of the app, filtered by kind (nil: any) and time (`since <= time <= until`, either end
    /// optional): the newest `limit` matches, returned oldest first (newest last).
    func logs(appId: String, kind: String?, since: Date?, until: Date?, limit: Int) async throws -> [LogRecord]
    /// Deletes the app's log records from before `date` (``Housekeeping``); returns how many.
    @discardableResult func deleteLogs(appId: String, before date: Date) async throws -> Int

    /// Deletes the app's refresh-token sessions that expired before `date` (``Housekeeping``); returns how many.
    /// Expired sessions are refused anyway; this keeps every login from staying in the database for ever.
    @discardableResult func deleteExpiredSessions(appId: String, before date: Date) async throws -> Int
}

/// The operations available inside ``ServerStorage/transaction(appId:_:)``.
public protocol StorageTransaction: Sendable {
    /// The app's highest server version as seen by this transaction.
    func latestServerVersion() async throws -> Int64

    /// The documents with these primary keys that exist, keyed by primary key.
    func documents(collection: String, primaryKeys: [Value]) async throws -> [Value: Document]

    /// Inserts or replaces a document (its primary key is its `_id` field).
    func putDocument(collection: String, _ document: Document) async throws

    /// Inserts or replaces a document whose Extended JSON text the caller has already written; `text` must equal
    /// `document.extendedJSONText`, and a driver may store it as it is. (Outpost-internal; the default writes the
    /// document again.)
    func putDocument(collection: String, _ document: Document, text: String) async throws

    /// Inserts those of `inserts` whose primary key is not stored yet (nor written earlier in this transaction), and
    /// returns their indices in `inserts`. Each insert comes with its primary key's text
    /// (``PrimaryKeyText/make(_:)``) and its document's Extended JSON text, already written. (Outpost-internal, for
    /// event uploads; the default looks the documents up and puts the new ones one by one.)
    func insertNew(collection: String, _ inserts: PrewrittenInserts) async throws -> [Int]

    /// Deletes a document; returns whether it existed.
    @discardableResult func deleteDocument(collection: String, primaryKey: Value) async throws -> Bool

    /// Appends a changeset to the history with the next server version, which it returns.
    func appendChangeset(_ changeset: ServerChangesetDraft) async throws -> Int64

    /// The highest client version integrated from a client file (0 when none).
    func integratedClientVersion(fileIdent: Int64) async throws -> Int64
    func setIntegratedClientVersion(fileIdent: Int64, _ version: Int64) async throws
}

extension ServerStorage {
    public func queuedTransaction<T: Sendable>(
        appId: String,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> PendingTransaction<T> {
        PendingTransaction(committed: try await transaction(appId: appId, body))
    }
}

extension StorageTransaction {
    public func putDocument(collection: String, _ document: Document, text: String) async throws {
        try await putDocument(collection: collection, document)
    }

    public func insertNew(collection: String, _ inserts: PrewrittenInserts) async throws -> [Int] {
        let existing = try await documents(collection: collection, primaryKeys: inserts.primaryKeys)
        var inserted: [Int] = []
        for i in inserts.documents.indices where existing[inserts.primaryKeys[i]] == nil {
            try await putDocument(collection: collection, inserts.documents[i], text: inserts.texts[i])
            inserted.append(i)
        }
        return inserted
    }
}

/// A stored document with its key (``PrimaryKeyText``), as ``ServerStorage/documents(appId:collection:after:limit:)``
/// pages them.
public struct StoredDocument: Sendable {
    public var key: String
    public var document: Document

    public init(key: String, document: Document) {
        self.key = key
        self.document = document
    }
}

/// One document of a page as Extended JSON text (``ServerStorage/documentTexts(appId:collection:after:limit:)``).
public struct StoredDocumentText: Sendable {
    /// The document's `pk_key` (``PrimaryKeyText``): its primary key's Extended JSON, and the next page's `after`.
    public var key: String
    /// The document as Extended JSON text, `_id` included.
    public var text: String

    public init(key: String, text: String) {
        self.key = key
        self.text = text
    }
}

extension ServerStorage {
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
}

extension ServerStorage {
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
