import Foundation
import OutpostCore
import PostgresNIO

extension PostgresStorage {
    public func auditEvents(appId: String, matching search: AuditSearch, limit: Int) async throws -> [AuditEventRecord] {
        let query = try Self.query(AuditSearchSQL.page(appId: appId, search, limit: limit) { "$\($0)" })
        return try await rows("search audit events", query) { row in
            let (ts, id, user, activity, type, batch, objects, users, body) = try row.decode(
                (Int64, String, String?, String, String?, Int64, String?, String?, String?).self)
            let entry = AuditIndexEntry(
                eventId: id, timestamp: ts, userId: user, activity: activity, eventType: type,
                users: AuditChain.users(fromText: users), objects: AuditChain.objects(fromText: objects))
            return AuditEventRecord(entry: entry, batch: batch, text: body)
        }
    }

    public func auditEventCount(appId: String, matching search: AuditSearch) async throws -> Int {
        if search.isUnfiltered {
            return try await rows("read the audit chain", "SELECT events FROM audit_chain WHERE app = \(appId)") {
                try $0.decode(Int64.self)
            }.first.map(Int.init) ?? 0
        }
        let query = try Self.query(AuditSearchSQL.count(appId: appId, search) { "$\($0)" })
        return try await rows("count audit events", query) { try $0.decode(Int64.self) }.first.map(Int.init) ?? 0
    }

    public func auditBatches(appId: String, after sequence: Int64, limit: Int) async throws -> [AuditBatchRecord] {
        try await rows("read audit batches", """
            SELECT seq, ingested_at, event_count, first_event, last_event, event_ids, pruned, pruned_count, prev_hash, hash
            FROM audit_batches WHERE app = \(appId) AND seq > \(sequence) ORDER BY seq LIMIT \(Int64(max(0, limit)))
            """, Self.auditBatch)
    }

    public func auditEventTexts(appId: String, eventIds: [String]) async throws -> [String: String] {
        guard !eventIds.isEmpty else { return [:] }
        let keys = eventIds.map(AuditChain.documentKey(of:))
        let rows = try await rows(
            "read audit event documents",
            """
            SELECT pk_key, body FROM documents
            WHERE app = \(appId) AND collection = 'AuditEvent' AND pk_key = ANY(\(keys)::text[])
            """
        ) { try $0.decode((String, String).self) }
        return AuditChain.textsById(rows.map { (key: $0.0, body: $0.1) })
    }

    public func auditEventsIngestedPerHour(appId: String, since date: Date) async throws -> [Int64: Int] {
        let rows = try await rows("count ingested audit events", """
            SELECT ingested_at / 3600000, sum(event_count)::bigint FROM audit_batches
            WHERE app = \(appId) AND ingested_at >= \(date.millisecondsSince1970) GROUP BY 1
            """) { try $0.decode((Int64, Int64).self) }
        return Dictionary(rows.map { ($0.0, Int($0.1)) }, uniquingKeysWith: +)
    }

    static func query(_ search: AuditSearchSQL) throws -> PostgresQuery {
        var binds = PostgresBindings()
        for argument in search.arguments {
            switch argument {
            case .text(let text): try binds.append(text)
            case .integer(let value): try binds.append(value)
            }
        }
        return PostgresQuery(unsafeSQL: search.sql, binds: binds)
    }

    static func auditBatch(_ row: PostgresRow) throws -> AuditBatchRecord {
        let (seq, ingested, count, first, last, ids, pruned, prunedCount, previous, hash) = try row.decode(
            (Int64, Int64, Int64, String, String, String, String?, Int64, String, String).self)
        return AuditBatchRecord(
            sequence: seq, ingestedAt: Date(timeIntervalSince1970: Double(ingested) / 1000), eventCount: Int(count),
            firstEvent: first, lastEvent: last, eventIds: AuditChain.ids(fromText: ids),
            prunedDigests: AuditChain.pruned(fromText: pruned), prunedCount: Int(prunedCount), previousHash: previous,
            hash: hash)
    }
}
