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
        for statement in [event, user, object] { try DirectRows.bindConstant(statement, appId, at: 1, in: db) }
        var inserted = 0
        for (i, entry) in draft.entries.enumerated() {
            try DirectRows.run(event, in: db) { row in
                try row.integer(entry.timestamp, at: 2)
                try row.text(entry.eventId, at: 3)
                try row.text(entry.userId, at: 4)
                try row.text(entry.activity, at: 5)
                try row.text(entry.eventType, at: 6)
                try row.integer(sequence, at: 7)
                try row.text(draft.storedObjects[i], at: 8)
                try row.text(draft.storedUsers[i], at: 9)
            }
            inserted += db.changesCount
            for value in entry.users {
                try DirectRows.run(user, in: db) { row in
                    try row.text(value, at: 2)
                    try row.integer(entry.timestamp, at: 3)
                    try row.text(entry.eventId, at: 4)
                }
            }
            for key in entry.objects {
                try DirectRows.run(object, in: db) { row in
                    try row.text(key.className, at: 2)
                    try row.text(key.primaryKey, at: 3)
                    try row.integer(entry.timestamp, at: 4)
                    try row.text(entry.eventId, at: 5)
                }
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
            try DirectRows.run(update, in: db) { row in
                try row.text(AuditChain.idsText(batch.eventIds), at: 1)
                try row.text(AuditChain.prunedText(batch.prunedDigests), at: 2)
                try row.integer(Int64(batch.prunedCount), at: 3)
                try row.text(appId, at: 4)
                try row.integer(sequence, at: 5)
            }
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
}
