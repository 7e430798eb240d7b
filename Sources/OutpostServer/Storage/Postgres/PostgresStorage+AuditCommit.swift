import Foundation
import Logging
import PostgresNIO

extension PostgresStorage {
    /// The audit writes of a transaction, on its connection after its other writes and before `COMMIT`, under the
    /// app's advisory lock (so batches are chained in commit order, also across server processes).
    func applyAudit(_ writes: TransactionWrites, appId: String, on connection: PostgresConnection) async throws {
        if let batch = writes.auditBatch { try await applyAuditBatch(batch, appId: appId, on: connection) }
        if !writes.auditRemovals.isEmpty { try await applyAuditRemovals(writes.auditRemovals, appId: appId, on: connection) }
    }

    /// One statement for an ingest's index rows, its batch and the new head of the chain. Index rows that exist
    /// already are kept (`ON CONFLICT DO NOTHING`); the head counts only the events' rows actually inserted.
    private func applyAuditBatch(_ draft: AuditBatchDraft, appId: String, on connection: PostgresConnection) async throws {
        let head = try await auditHead(appId: appId, on: connection)
        let (record, newHead) = AuditChain.link(draft, after: head, inserted: 0)
        let entries = draft.entries
        // NULLs travel as flags beside the texts (postgres-nio encodes arrays of non-optional values).
        let users = entries.flatMap { entry in entry.users.map { (entry, $0) } }
        let objects = entries.flatMap { entry in entry.objects.map { (entry, $0) } }
        _ = try await connection.query(
            """
            WITH ev AS (
                INSERT INTO audit_events (app, ts, event_id, user_id, activity, event_type, batch_seq, objects, user_values)
                SELECT \(appId), t.ts, t.id, CASE WHEN t.nu THEN NULL ELSE t.u END, t.a,
                    CASE WHEN t.nt THEN NULL ELSE t.ty END, \(record.sequence), NULLIF(t.o, ''), NULLIF(t.uv, '')
                FROM unnest(\(entries.map(\.timestamp))::bigint[], \(entries.map(\.eventId))::text[],
                    \(entries.map { $0.userId ?? "" })::text[], \(entries.map { $0.userId == nil })::bool[],
                    \(entries.map(\.activity))::text[], \(entries.map { $0.eventType ?? "" })::text[],
                    \(entries.map { $0.eventType == nil })::bool[],
                    \(draft.storedObjects.map { $0 ?? "" })::text[], \(draft.storedUsers.map { $0 ?? "" })::text[])
                    AS t(ts, id, u, nu, a, ty, nt, o, uv)
                ON CONFLICT DO NOTHING RETURNING 1),
            us AS (
                INSERT INTO audit_event_users (app, value, ts, event_id)
                SELECT \(appId), t.v, t.ts, t.id FROM unnest(\(users.map(\.1))::text[], \(users.map(\.0.timestamp))::bigint[],
                    \(users.map(\.0.eventId))::text[]) AS t(v, ts, id)
                ON CONFLICT DO NOTHING),
            ob AS (
                INSERT INTO audit_event_objects (app, class, pk, ts, event_id)
                SELECT \(appId), t.c, t.k, t.ts, t.id FROM unnest(\(objects.map(\.1.className))::text[],
                    \(objects.map(\.1.primaryKey))::text[], \(objects.map(\.0.timestamp))::bigint[],
                    \(objects.map(\.0.eventId))::text[]) AS t(c, k, ts, id)
                ON CONFLICT DO NOTHING),
            ba AS (
                INSERT INTO audit_batches (app, seq, ingested_at, event_count, first_event, last_event, event_ids, pruned,
                    pruned_count, prev_hash, hash)
                VALUES (\(appId), \(record.sequence), \(record.ingestedAt.millisecondsSince1970), \(Int64(record.eventCount)),
                    \(record.firstEvent), \(record.lastEvent), \(AuditChain.idsText(record.eventIds)), NULL, 0,
                    \(record.previousHash), \(record.hash)))
            INSERT INTO audit_chain (app, seq, hash, events)
            VALUES (\(appId), \(newHead.sequence), \(newHead.hash), \(head.events) + (SELECT count(*) FROM ev))
            ON CONFLICT (app) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, events = EXCLUDED.events
            """,
            logger: logger
        ).collect()
    }

    /// Deletes the removed events' index rows and lowers the head's count in one statement, then keeps their digests
    /// in their batches.
    private func applyAuditRemovals(_ removals: [AuditRemoval], appId: String, on connection: PostgresConnection) async throws {
        let entries = removals.map(\.record.entry)
        let users = entries.flatMap { entry in entry.users.map { (entry, $0) } }
        let objects = entries.flatMap { entry in entry.objects.map { (entry, $0) } }
        _ = try await connection.query(
            """
            WITH ev AS (
                DELETE FROM audit_events e USING unnest(\(entries.map(\.timestamp))::bigint[], \(entries.map(\.eventId))::text[])
                    AS t(ts, id)
                WHERE e.app = \(appId) AND e.ts = t.ts AND e.event_id = t.id RETURNING 1),
            us AS (
                DELETE FROM audit_event_users u USING unnest(\(users.map(\.1))::text[], \(users.map(\.0.timestamp))::bigint[],
                    \(users.map(\.0.eventId))::text[]) AS t(v, ts, id)
                WHERE u.app = \(appId) AND u.value = t.v AND u.ts = t.ts AND u.event_id = t.id),
            ob AS (
                DELETE FROM audit_event_objects o USING unnest(\(objects.map(\.1.className))::text[],
                    \(objects.map(\.1.primaryKey))::text[], \(objects.map(\.0.timestamp))::bigint[],
                    \(objects.map(\.0.eventId))::text[]) AS t(c, k, ts, id)
                WHERE o.app = \(appId) AND o.class = t.c AND o.pk = t.k AND o.ts = t.ts AND o.event_id = t.id)
            UPDATE audit_chain SET events = GREATEST(0, events - (SELECT count(*) FROM ev)) WHERE app = \(appId)
            """,
            logger: logger
        ).collect()
        let groups = Dictionary(grouping: removals, by: \.record.batch)
        let batches = try await connection.query(
            """
            SELECT seq, ingested_at, event_count, first_event, last_event, event_ids, pruned, pruned_count, prev_hash, hash
            FROM audit_batches WHERE app = \(appId) AND seq = ANY(\(Array(groups.keys))::bigint[])
            """,
            logger: logger
        ).collect().map(Self.auditBatch).map { AuditChain.removing(groups[$0.sequence] ?? [], from: $0) }
        _ = try await connection.query(
            """
            UPDATE audit_batches b SET event_ids = t.e, pruned = NULLIF(t.p, ''), pruned_count = t.c
            FROM unnest(\(batches.map(\.sequence))::bigint[], \(batches.map { AuditChain.idsText($0.eventIds) })::text[],
                \(batches.map { AuditChain.prunedText($0.prunedDigests) ?? "" })::text[],
                \(batches.map { Int64($0.prunedCount) })::bigint[]) AS t(s, e, p, c)
            WHERE b.app = \(appId) AND b.seq = t.s
            """,
            logger: logger
        ).collect()
    }

    private func auditHead(appId: String, on connection: PostgresConnection) async throws -> AuditChain.Head {
        let rows = try await connection.query(
            "SELECT seq, hash, events FROM audit_chain WHERE app = \(appId)", logger: logger
        ).collect()
        guard let row = rows.first else { return .empty }
        let (sequence, hash, events) = try row.decode((Int64, String, Int64).self)
        return AuditChain.Head(sequence: sequence, hash: hash, events: events)
    }
}
