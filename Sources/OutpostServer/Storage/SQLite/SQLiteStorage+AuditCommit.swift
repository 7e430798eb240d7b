import Foundation
import GRDB

extension SQLiteStorage {
    /// Writes an ingest's audit rows and links its batch into the app's chain, inside the commit's SQLite
    /// transaction on the writer (so batches are chained in commit order, whatever transaction bodies queued).
    /// An index row that exists already (an event stored again after its document was deleted out of band) is kept.
    static func commitAuditBatch(_ draft: AuditBatchDraft, appId: String, _ db: Database) throws {
        let head = try auditHead(appId, db)
        let sequence = head.sequence + 1
        let event = try db.cachedStatement(sql: """
            INSERT INTO audit_events (app, ts, event_id, user_id, activity, event_type, batch_seq, objects, user_values)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """)
        let user = try db.cachedStatement(
            sql: "INSERT INTO audit_event_users (app, value, ts, event_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
        let object = try db.cachedStatement(sql: """
            INSERT INTO audit_event_objects (app, class, pk, ts, event_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """)
        var inserted = 0
        for entry in draft.entries {
            try DirectRows.run(event, [
                .text(appId), .integer(entry.timestamp), .text(entry.eventId), optional(entry.userId), .text(entry.activity),
                optional(entry.eventType), .integer(sequence), optional(AuditChain.objectsText(entry.objects)),
                optional(AuditChain.usersText(entry.users)),
            ], in: db)
            inserted += db.changesCount
            for value in entry.users {
                try DirectRows.run(user, [.text(appId), .text(value), .integer(entry.timestamp), .text(entry.eventId)], in: db)
            }
            for key in entry.objects {
                try DirectRows.run(object, [
                    .text(appId), .text(key.className), .text(key.primaryKey), .integer(entry.timestamp), .text(entry.eventId),
                ], in: db)
            }
        }
        let (record, newHead) = AuditChain.link(draft, after: head, inserted: inserted)
        try DirectRows.run(try db.cachedStatement(sql: """
            INSERT INTO audit_batches (app, seq, ingested_at, event_count, first_event, last_event, event_ids, pruned,
                pruned_count, prev_hash, hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?)
            """), [
                .text(appId), .integer(record.sequence), .integer(record.ingestedAt.millisecondsSince1970),
                .integer(Int64(record.eventCount)), .text(record.firstEvent), .text(record.lastEvent),
                .text(AuditChain.idsText(record.eventIds)), .text(record.previousHash), .text(record.hash),
            ], in: db)
        try storeAuditHead(newHead, appId: appId, db)
    }

    /// Deletes the index rows of events retention removes and keeps their digests in their batches.
    static func commitAuditRemovals(_ removals: [AuditRemoval], appId: String, _ db: Database) throws {
        let event = try db.cachedStatement(sql: "DELETE FROM audit_events WHERE app = ? AND ts = ? AND event_id = ?")
        let user = try db.cachedStatement(
            sql: "DELETE FROM audit_event_users WHERE app = ? AND value = ? AND ts = ? AND event_id = ?")
        let object = try db.cachedStatement(
            sql: "DELETE FROM audit_event_objects WHERE app = ? AND class = ? AND pk = ? AND ts = ? AND event_id = ?")
        var deleted = 0
        for removal in removals {
            let entry = removal.record.entry
            try DirectRows.run(event, [.text(appId), .integer(entry.timestamp), .text(entry.eventId)], in: db)
            deleted += db.changesCount
            for value in entry.users {
                try DirectRows.run(user, [.text(appId), .text(value), .integer(entry.timestamp), .text(entry.eventId)], in: db)
            }
            for key in entry.objects {
                try DirectRows.run(object, [
                    .text(appId), .text(key.className), .text(key.primaryKey), .integer(entry.timestamp), .text(entry.eventId),
                ], in: db)
            }
        }
        let read = try db.cachedStatement(sql: """
            SELECT seq, ingested_at, event_count, first_event, last_event, event_ids, pruned, pruned_count, prev_hash, hash
            FROM audit_batches WHERE app = ? AND seq = ?
            """)
        let update = try db.cachedStatement(
            sql: "UPDATE audit_batches SET event_ids = ?, pruned = ?, pruned_count = ? WHERE app = ? AND seq = ?")
        for (sequence, group) in Dictionary(grouping: removals, by: \.record.batch).sorted(by: { $0.key < $1.key }) {
            guard let row = try Row.fetchOne(read, arguments: [appId, sequence]) else { continue }
            let batch = AuditChain.removing(group, from: auditBatch(row))
            try DirectRows.run(update, [
                .text(AuditChain.idsText(batch.eventIds)), optional(AuditChain.prunedText(batch.prunedDigests)),
                .integer(Int64(batch.prunedCount)), .text(appId), .integer(sequence),
            ], in: db)
        }
        var head = try auditHead(appId, db)
        head.events = max(0, head.events - Int64(deleted))
        try storeAuditHead(head, appId: appId, db)
    }

    private static func storeAuditHead(_ head: AuditChain.Head, appId: String, _ db: Database) throws {
        try DirectRows.run(try db.cachedStatement(sql: """
            INSERT INTO audit_chain (app, seq, hash, events) VALUES (?, ?, ?, ?)
            ON CONFLICT (app) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, events = excluded.events
            """), [.text(appId), .integer(head.sequence), .text(head.hash), .integer(head.events)], in: db)
    }

    private static func optional(_ text: String?) -> DirectRows.Argument {
        text.map(DirectRows.Argument.text) ?? .null
    }
}
