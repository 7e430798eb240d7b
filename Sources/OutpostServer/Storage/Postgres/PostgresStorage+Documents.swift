import Foundation
import Logging
import OutpostCore
import PostgresNIO

extension PostgresStorage {
    public func transaction<T: Sendable>(
        appId: String,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> T {
        try await appLock.withLock(appId) {
            try await run("run a transaction") {
                try await client.withConnection { connection in
                    try await transaction(appId: appId, on: connection, body)
                }
            }
        }
    }

    /// BEGIN, take the app's advisory lock, run the body, apply its writes with one statement, COMMIT.
    private func transaction<T: Sendable>(
        appId: String, on connection: PostgresConnection,
        _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> T {
        let transaction = BufferedTransaction(reader: Reader(connection: connection, appId: appId, logger: logger))
        do {
            try await connection.query("BEGIN", logger: logger)
            _ = try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\(lockKey(appId: appId)), 0))", logger: logger
            ).collect()
            let result = try await body(transaction)
            let writes = transaction.finish()
            if !writes.isEmpty {
                try await apply(writes, appId: appId, on: connection)
                try await applyAudit(writes, appId: appId, on: connection)
            }
            try await connection.query("COMMIT", logger: logger)
            let auditRows = writes.auditBatch.map { $0.entries.reduce(0) { $0 + 1 + $1.users.count + $1.objects.count } } ?? 0
            if statistics.noteWritten(rows: writes.documents.count + writes.changesets.count + auditRows) {
                refreshStatistics()
            }
            return result
        } catch {
            transaction.finishIfNeeded()
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Runs `ANALYZE` on the tables a sync transaction reads, in the background (see ``PostgresStatistics``).
    private func refreshStatistics() {
        Task {
            defer { statistics.refreshEnded() }
            try? await refreshPlannerStatistics()
        }
    }

    /// Refreshes the planner statistics of the tables a sync transaction and a lookup read, now.
    package func refreshPlannerStatistics() async throws {
        try await execute("refresh the planner statistics", """
            ANALYZE documents, history, client_progress, audit_events, audit_event_users, audit_event_objects, audit_batches
            """)
    }

    /// One statement for all of a transaction's writes: data-modifying CTEs over `unnest`ed arrays, and the
    /// `pg_notify` that PostgreSQL delivers when the transaction commits.
    private func apply(_ writes: TransactionWrites, appId: String, on connection: PostgresConnection) async throws {
        let puts = writes.puts
        let deletes = writes.deletes
        let versions = writes.changesets.map(\.serverVersion)
        let history = try writes.changesets.map { try $0.draft.storageText() }
        let progress = writes.progress.sorted { $0.key < $1.key }
        let payload = versions.last.map {
            ChangeBroadcaster.payload(of: ChangeNotification(appId: appId, serverVersion: $0))
        } ?? ""
        // The rows are read to the end: the statement returns rows, so an error in it (a refused value, a broken
        // constraint) arrives in the row sequence, not from `query`. Left unread, it was lost, and the COMMIT that
        // follows on the aborted transaction only rolls back: the commit reported success and stored nothing.
        _ = try await connection.query(
            """
            WITH put AS (
                INSERT INTO documents (app, collection, pk_key, body)
                SELECT \(appId), t.c, t.k, t.b FROM unnest(\(puts.collections)::text[], \(puts.keys)::text[],
                    \(puts.bodies)::text[]) AS t(c, k, b)
                ON CONFLICT (app, collection, pk_key) DO UPDATE SET body = EXCLUDED.body),
            del AS (
                DELETE FROM documents d USING unnest(\(deletes.collections)::text[], \(deletes.keys)::text[]) AS t(c, k)
                WHERE d.app = \(appId) AND d.collection = t.c AND d.pk_key = t.k),
            hist AS (
                INSERT INTO history (app, server_version, body)
                SELECT \(appId), t.v, t.b FROM unnest(\(versions)::bigint[], \(history)::text[]) AS t(v, b)),
            prog AS (
                INSERT INTO client_progress (app, file_ident, client_version)
                SELECT \(appId), t.f, t.v FROM unnest(\(progress.map(\.key))::bigint[], \(progress.map(\.value))::bigint[])
                    AS t(f, v)
                ON CONFLICT (app, file_ident) DO UPDATE SET client_version = EXCLUDED.client_version)
            SELECT pg_notify(\(notificationChannel), \(payload)) WHERE \(!versions.isEmpty)
            """,
            logger: logger
        ).collect()
    }

    /// A transaction's view of the database, read on the transaction's own connection under its advisory lock.
    /// It is used only while the body runs, inside the `withConnection` lease: BufferedTransaction traps
    /// afterwards, so the connection never escapes its lease.
    struct Reader: TransactionReader {
        let connection: PostgresConnection
        let appId: String
        let logger: Logger

        func latestServerVersion() async throws -> Int64 {
            let rows = try await connection.query(
                "SELECT COALESCE(MAX(server_version), 0)::bigint FROM history WHERE app = \(appId)", logger: logger
            ).collect()
            return try rows.first?.decode(Int64.self) ?? 0
        }

        func documents(collection: String, keys: [String]) async throws -> [String: Document] {
            let rows = try await connection.query(
                PostgresStorage.documentsQuery(appId: appId, collection: collection, keys: keys), logger: logger
            ).collect()
            return try PostgresStorage.documentsByKey(rows)
        }

        func integratedClientVersion(fileIdent: Int64) async throws -> Int64 {
            let rows = try await connection.query(
                "SELECT client_version FROM client_progress WHERE app = \(appId) AND file_ident = \(fileIdent)",
                logger: logger
            ).collect()
            return try rows.first?.decode(Int64.self) ?? 0
        }
    }

    static func documentsQuery(appId: String, collection: String, keys: [String]) -> PostgresQuery {
        """
        SELECT pk_key, body FROM documents
        WHERE app = \(appId) AND collection = \(collection) AND pk_key = ANY(\(keys)::text[])
        """
    }

    static func documentsByKey(_ rows: [PostgresRow]) throws -> [String: Document] {
        var result: [String: Document] = [:]
        for row in rows {
            let (key, body) = try row.decode((String, String).self)
            result[key] = try StorageCoding.decodeDocument(body)
        }
        return result
    }

    // MARK: Reads

    public func latestServerVersion(appId: String) async throws -> Int64 {
        try await rows(
            "read the latest server version",
            "SELECT COALESCE(MAX(server_version), 0)::bigint FROM history WHERE app = \(appId)"
        ) { try $0.decode(Int64.self) }.first ?? 0
    }

    public func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
        let rows = try await rows(
            "read changesets",
            """
            SELECT server_version, body FROM history
            WHERE app = \(appId) AND server_version > \(after) AND server_version <= \(upTo)
            ORDER BY server_version LIMIT \(max(limit, 0))
            """
        ) { try $0.decode((Int64, String).self) }
        return try rows.map { version, body in
            ServerChangeset(
                serverVersion: version,
                draft: try ServerChangesetDraft.fromStorageText(body))
        }
    }

    public func document(appId: String, collection: String, primaryKey: Value) async throws -> Document? {
        let key = PrimaryKeyText.make(primaryKey)
        let rows = try await rows("read a document", Self.documentsQuery(appId: appId, collection: collection, keys: [key])) {
            $0
        }
        return try Self.documentsByKey(rows)[key]
    }

    public func documents(appId: String, collection: String) async throws -> [Document] {
        let bodies = try await rows(
            "read a collection", "SELECT body FROM documents WHERE app = \(appId) AND collection = \(collection)"
        ) { try $0.decode(String.self) }
        return try PrimaryKeyText.sortedByPrimaryKey(bodies.map(StorageCoding.decodeDocument))
    }

    public func documents(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocument] {
        // `pk_key` is `COLLATE "C"`: byte order, as the other drivers page.
        let rows = try await rows("read a collection", """
            SELECT pk_key, body FROM documents
            WHERE app = \(appId) AND collection = \(collection) AND pk_key > \(after ?? "")
            ORDER BY pk_key LIMIT \(Int64(max(0, limit)))
            """) { row in try row.decode((String, String).self) }
        return try rows.map { StoredDocument(key: $0.0, document: try StorageCoding.decodeDocument($0.1)) }
    }

    public func documentCount(appId: String, collection: String) async throws -> Int {
        try await rows(
            "count a collection",
            "SELECT count(*) FROM documents WHERE app = \(appId) AND collection = \(collection)"
        ) { try $0.decode(Int.self) }.first ?? 0
    }

    public func collections(appId: String) async throws -> [String] {
        try await rows(
            "list collections",
            "SELECT DISTINCT collection COLLATE \"C\" AS c FROM documents WHERE app = \(appId) ORDER BY c"
        ) { try $0.decode(String.self) }
    }
}
