import Foundation
import GRDB
import OutpostCore

extension SQLiteStorage {
    public func transaction<T: Sendable>(
        appId: String,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> T {
        try await queuedTransaction(appId: appId, body).committed()
    }

    /// Runs the body under the app's lock, then queues its writes (``CommitQueue``), hands them to GRDB's writer
    /// and releases the lock: the app's next body runs while these writes commit, reading them through the queue.
    /// The writer's queue runs commits in the order they were handed over.
    public func queuedTransaction<T: Sendable>(
        appId: String,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> PendingTransaction<T> {
        try await appLock.withLock(appId) {
            let predecessor = commits.last(appId: appId)
            let transaction = BufferedTransaction(reader: Reader(storage: self, appId: appId))
            let result: T
            do {
                result = try await body(transaction)
            } catch {
                transaction.finishIfNeeded()
                throw error
            }
            let writes = transaction.finish()
            guard !writes.isEmpty else {
                // Nothing to write, but what the body read may come from a queued commit: it stands once that did.
                return PendingTransaction(result: result) { try await predecessor?.follow() }
            }
            let (id, outcome) = commits.enqueue(appId: appId, writes)
            writer.asyncWriteWithoutTransaction { [self] db in
                let committed: Result<Void, any Error>
                do {
                    if case .failure(let error) = predecessor?.result { throw CommitOutcome.predecessorFailed(error) }
                    try Self.commit(appId: appId, writes, db)
                    committed = .success(())
                } catch {
                    committed = .failure(Self.storageError(error, doing: "commit a transaction"))
                }
                commits.finish(appId: appId, id: id, committed)
            }
            let version = writes.changesets.last?.serverVersion
            // Announced by the caller's task once durable, after the caller recorded the new changesets for its
            // sessions (`SyncHub.record`, from `committed(beforeAnnouncing:)`): woken sessions then find them in
            // memory instead of reading them back.
            return PendingTransaction(result: result, commit: { try await outcome.wait() }, announce: { [broadcaster] in
                if let version { broadcaster.yield(ChangeNotification(appId: appId, serverVersion: version)) }
            })
        }
    }

    /// Applies a transaction's writes in one SQLite transaction, on GRDB's writer queue.
    private static func commit(appId: String, _ writes: TransactionWrites, _ db: Database) throws {
        let putOrder = writes.putOrder
        let deletes = writes.deletes
        let history = try writes.changesets.map {
            ($0.serverVersion, try $0.draft.storageBytes())
        }
        let progress = writes.progress.sorted { $0.key < $1.key }
        let base = writes.baseVersion
        try db.inTransaction(.immediate) {
            if let base, !history.isEmpty {
                let latest = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT MAX(server_version) FROM history WHERE app = ?"),
                    arguments: [appId]) ?? 0
                guard latest == base else {
                    throw StorageError(.conflict, "the app's history moved from \(base) to \(latest) during a transaction")
                }
            }
            let put = try db.cachedStatement(sql: """
                INSERT INTO documents (app, collection, pk_key, body) VALUES (?, ?, ?, ?)
                ON CONFLICT (app, collection, pk_key) DO UPDATE SET body = excluded.body
                """)
            if !putOrder.isEmpty {
                try DirectRows.bindConstant(put, appId, at: 1, in: db)
                let entries = writes.documents.entries
                for i in putOrder {
                    try DirectRows.run(put, texts: entries[i].address.collection, entries[i].address.key, writes.putText(i),
                                       from: 2, in: db)
                }
            }
            let delete = try db.cachedStatement(
                sql: "DELETE FROM documents WHERE app = ? AND collection = ? AND pk_key = ?")
            for i in deletes.keys.indices {
                try delete.execute(arguments: [appId, deletes.collections[i], deletes.keys[i]])
            }
            let append = try db.cachedStatement(
                sql: "INSERT INTO history (app, server_version, body) VALUES (?, ?, ?)")
            for (version, body) in history { try DirectRows.run(append, [.text(appId), .integer(version), .utf8(body)], in: db) }
            let integrate = try db.cachedStatement(sql: """
                INSERT INTO client_progress (app, file_ident, client_version) VALUES (?, ?, ?)
                ON CONFLICT (app, file_ident) DO UPDATE SET client_version = excluded.client_version
                """)
            for (ident, version) in progress { try integrate.execute(arguments: [appId, ident, version]) }
            if let batch = writes.auditBatch { try commitAuditBatch(batch, appId: appId, db) }
            if !writes.auditRemovals.isEmpty { try commitAuditRemovals(writes.auditRemovals, appId: appId, db) }
            return .commit
        }
    }

    /// A transaction's view of the committed state, overlaid with the writes still queued for commit.
    struct Reader: TransactionReader {
        let storage: SQLiteStorage
        let appId: String

        func latestServerVersion() async throws -> Int64 {
            if let queued = storage.commits.latestServerVersion(appId: appId) { return queued }
            return try storage.readNow("read the latest server version") { [appId] db in
                try SQLiteStorage.latestServerVersion(db, appId: appId)
            }
        }

        func documents(collection: String, keys: [String]) async throws -> [String: Document] {
            let queued = storage.commits.documents(appId: appId, collection: collection, keys: keys)
            var result: [String: Document] = [:]
            for case let (key, document?) in queued { result[key] = document }
            let unqueued = queued.isEmpty ? keys : keys.filter { queued[$0] == nil }
            guard !unqueued.isEmpty else { return result }
            let stored = try await storage.documents(appId: appId, collection: collection, keys: unqueued)
            if result.isEmpty { return stored }
            result.merge(stored) { queued, _ in queued }
            return result
        }

        func integratedClientVersion(fileIdent: Int64) async throws -> Int64 {
            if let queued = storage.commits.integratedClientVersion(appId: appId, fileIdent: fileIdent) { return queued }
            return try storage.readNow("read a client version") { [appId] db in
                try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT client_version FROM client_progress WHERE app = ? AND file_ident = ?"),
                    arguments: [appId, fileIdent]) ?? 0
            }
        }
    }

    // MARK: Reads

    public func latestServerVersion(appId: String) async throws -> Int64 {
        try await read("read the latest server version") { db in try Self.latestServerVersion(db, appId: appId) }
    }

    static func latestServerVersion(_ db: Database, appId: String) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT MAX(server_version) FROM history WHERE app = ?"), arguments: [appId]) ?? 0
    }

    public func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
        let rows = try await read("read changesets") { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT server_version, body FROM history
                    WHERE app = ? AND server_version > ? AND server_version <= ?
                    ORDER BY server_version LIMIT ?
                    """),
                arguments: [appId, after, upTo, max(limit, 0)]
            ).map { (row: Row) -> (Int64, String) in (row[0], row[1]) }
        }
        return try rows.map { version, body in
            ServerChangeset(
                serverVersion: version,
                draft: try ServerChangesetDraft.fromStorageText(body))
        }
    }

    public func document(appId: String, collection: String, primaryKey: Value) async throws -> Document? {
        let key = PrimaryKeyText.make(primaryKey)
        return try await documents(appId: appId, collection: collection, keys: [key])[key]
    }

    public func documents(appId: String, collection: String) async throws -> [Document] {
        let bodies = try await read("read a collection") { db in
            try String.fetchAll(
                db, sql: "SELECT body FROM documents WHERE app = ? AND collection = ?", arguments: [appId, collection])
        }
        return try PrimaryKeyText.sortedByPrimaryKey(bodies.map(StorageCoding.decodeDocument))
    }

    public func documents(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocument] {
        try await documentTexts(appId: appId, collection: collection, after: after, limit: limit).map {
            StoredDocument(key: $0.key, document: try StorageCoding.decodeDocument($0.text))
        }
    }

    /// The stored bodies as they are: the server wrote them (``Document/extendedJSONText``, or an upload's text
    /// in that form), so they need no reading here.
    public func documentTexts(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocumentText] {
        try await read("read a collection") { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT pk_key, body FROM documents WHERE app = ? AND collection = ? AND pk_key > ?
                    ORDER BY pk_key LIMIT ?
                    """),
                arguments: [appId, collection, after ?? "", max(0, limit)]
            ).map { (row: Row) in StoredDocumentText(key: row[0], text: row[1]) }
        }
    }

    public func documentCount(appId: String, collection: String) async throws -> Int {
        try await read("count a collection") { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM documents WHERE app = ? AND collection = ?",
                             arguments: [appId, collection]) ?? 0
        }
    }

    public func collections(appId: String) async throws -> [String] {
        try await read("list collections") { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT collection FROM documents WHERE app = ? ORDER BY collection",
                arguments: [appId])
        }
    }

    /// Document reads of at most this many keys run in place (``readNow(_:_:)``).
    static let inPlaceReadLimit = 32

    /// The stored documents with these `pk_key` texts, in one query (the keys travel as one JSON array).
    ///
    /// Keys sorting after the collection's largest stored key are not looked up: no document has them. New objects
    /// whose keys grow (ObjectIds made by one client, counters) cost one index seek per upload that way, instead of
    /// a lookup per object. A single key is looked up as it is (the largest key would be a second read).
    func documents(appId: String, collection: String, keys: [String]) async throws -> [String: Document] {
        var keys = keys
        if keys.count > 1 {
            let largest = try readNow("read the largest key") { db in
                try String.fetchOne(
                    db.cachedStatement(sql: "SELECT MAX(pk_key) FROM documents WHERE app = ? AND collection = ?"),
                    arguments: [appId, collection])
            }
            guard let largest else { return [:] }
            keys.removeAll { Self.sortsAfter($0, largest) }
        }
        guard !keys.isEmpty else { return [:] }
        // The keys as one JSON array, written directly (a batch's thousands of keys, for every upload).
        var keyJSON: [UInt8] = []
        keyJSON.reserveCapacity(keys.reduce(2) { $0 + $1.utf8.count + 8 })
        writeJSONArray(keys, to: &keyJSON) { JSONValue.writeString($0, to: &$1) }
        let keyArray = String(decoding: keyJSON, as: UTF8.self)
        let fetch = { @Sendable (db: Database) throws -> [(String, String)] in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT pk_key, body FROM documents
                    WHERE app = ? AND collection = ? AND pk_key IN (SELECT value FROM json_each(?))
                    """),
                arguments: [appId, collection, keyArray]
            ).map { (row: Row) -> (String, String) in (row[0], row[1]) }
        }
        // A few keys (a single upload's objects): read in place; a batch's thousands: on a reader's queue.
        let rows = keys.count <= Self.inPlaceReadLimit
            ? try readNow("read documents", fetch) : try await read("read documents", fetch)
        var result: [String: Document] = [:]
        for (key, body) in rows { result[key] = try StorageCoding.decodeDocument(body) }
        return result
    }

    /// Whether `key` sorts after `largest` as SQLite's `BINARY` collation orders texts (their UTF-8 bytes).
    static func sortsAfter(_ key: String, _ largest: String) -> Bool {
        var key = key
        var largest = largest
        return key.withUTF8 { k in
            largest.withUTF8 { l in
                let common = min(k.count, l.count)
                let order = common == 0 ? 0 : memcmp(k.baseAddress!, l.baseAddress!, common)
                return order > 0 || (order == 0 && k.count > l.count)
            }
        }
    }

    public func changeNotifications() async throws -> AsyncStream<ChangeNotification> {
        broadcaster.subscribe()
    }
}
