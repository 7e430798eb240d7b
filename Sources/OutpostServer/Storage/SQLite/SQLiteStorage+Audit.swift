import Foundation
import GRDB
import OutpostCore

extension SQLiteStorage {
    public func auditEvents(appId: String, matching search: AuditSearch, limit: Int) async throws -> [AuditEventRecord] {
        let query = AuditSearchSQL.page(appId: appId, search, limit: limit) { "?\($0)" }
        let arguments = Self.statementArguments(query.arguments)
        return try await read("search audit events") { db in
            try Row.fetchAll(db.cachedStatement(sql: query.sql), arguments: arguments).map(Self.auditRecord)
        }
    }

    public func auditEventCount(appId: String, matching search: AuditSearch) async throws -> Int {
        if search.isUnfiltered { return Int(try await auditHead(appId: appId).events) }
        let query = AuditSearchSQL.count(appId: appId, search) { "?\($0)" }
        let arguments = Self.statementArguments(query.arguments)
        return try await read("count audit events") { db in
            try Int.fetchOne(db.cachedStatement(sql: query.sql), arguments: arguments) ?? 0
        }
    }

    public func auditBatches(appId: String, after sequence: Int64, limit: Int) async throws -> [AuditBatchRecord] {
        try await read("read audit batches") { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT seq, ingested_at, event_count, first_event, last_event, event_ids, pruned, pruned_count,
                        prev_hash, hash
                    FROM audit_batches WHERE app = ? AND seq > ? ORDER BY seq LIMIT ?
                    """),
                arguments: [appId, sequence, max(0, limit)]
            ).map(Self.auditBatch)
        }
    }

    public func auditEventTexts(appId: String, eventIds: [String]) async throws -> [String: String] {
        guard !eventIds.isEmpty else { return [:] }
        let keys = JSONValue.array(eventIds.map { .string(AuditChain.documentKey(of: $0)) }).text
        let rows = try await read("read audit event documents") { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT pk_key, body FROM documents
                    WHERE app = ? AND collection = 'AuditEvent' AND pk_key IN (SELECT value FROM json_each(?))
                    """),
                arguments: [appId, keys]
            ).map { (row: Row) -> (String, String) in (row[0], row[1]) }
        }
        return AuditChain.textsById(rows)
    }

    public func auditEventsIngestedPerHour(appId: String, since date: Date) async throws -> [Int64: Int] {
        let rows = try await read("count ingested audit events") { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT ingested_at / 3600000, sum(event_count) FROM audit_batches
                    WHERE app = ? AND ingested_at >= ? GROUP BY 1
                    """),
                arguments: [appId, date.millisecondsSince1970]
            ).map { (row: Row) -> (Int64, Int) in (row[0], row[1]) }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// The head of the app's audit chain (its last batch, and how many events are indexed).
    func auditHead(appId: String) async throws -> AuditChain.Head {
        try await read("read the audit chain") { db in try Self.auditHead(appId, db) }
    }

    static func auditHead(_ appId: String, _ db: Database) throws -> AuditChain.Head {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT seq, hash, events FROM audit_chain WHERE app = ?"), arguments: [appId])
        else { return .empty }
        return AuditChain.Head(sequence: row[0], hash: row[1], events: row[2])
    }

    // MARK: Rows

    static func statementArguments(_ arguments: [AuditSearchSQL.Argument]) -> StatementArguments {
        StatementArguments(arguments.map { argument -> (any DatabaseValueConvertible)? in
            switch argument {
            case .text(let text): text
            case .integer(let value): value
            }
        })
    }

    static func auditRecord(_ row: Row) -> AuditEventRecord {
        let entry = AuditIndexEntry(
            eventId: row[1], timestamp: row[0], userId: row[2], activity: row[3], eventType: row[4],
            users: AuditChain.users(fromText: row[7]), objects: AuditChain.objects(fromText: row[6]))
        return AuditEventRecord(entry: entry, batch: row[5], text: row[8])
    }

    static func auditBatch(_ row: Row) -> AuditBatchRecord {
        AuditBatchRecord(
            sequence: row[0], ingestedAt: Date(timeIntervalSince1970: Double(row[1] as Int64) / 1000), eventCount: row[2], firstEvent: row[3],
            lastEvent: row[4], eventIds: AuditChain.ids(fromText: row[5]), prunedDigests: AuditChain.pruned(fromText: row[6]),
            prunedCount: row[7], previousHash: row[8], hash: row[9])
    }
}
