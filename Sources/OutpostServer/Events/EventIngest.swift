import Foundation
import OutpostCore

/// Stores checked event uploads in the app's `AuditEvent` collection: the schema check (development mode off) or
/// schema recording (on) as for sync uploads, then one transaction that inserts the events not stored yet, appends
/// one changeset for them, which sync clients subscribed to `AuditEvent` receive, and records their audit index rows
/// as one batch of the app's audit chain (``AuditStorage``), so events and index commit together.
struct EventIngest: Sendable {
    let storage: any DocumentStorage
    let settings: SyncAppSettings
    let engine: SyncEngine?
    /// What the audit index takes from each event.
    var extractor = AuditExtractor()
    /// The time a batch is ingested at.
    var now: @Sendable () -> Date = { Date() }

    /// Inserts the batch's new events, uploaded by `uploader` (a user id); returns how many were new. Nothing is
    /// written when it throws.
    func insert(_ batch: EventBatch, uploader: String? = nil) async throws -> Int {
        guard !batch.documents.isEmpty else { return 0 }
        var written: [String: Value] = [:]
        for document in batch.documents {
            for (field, value) in document.fields {
                if let seen = written[field], seen != .null { continue }
                written[field] = value
            }
        }
        if let engine {
            do {
                try await engine.checkSchema(settings: settings, written: [EventBatch.collection: written])
            } catch let error as SyncProtocolError {
                throw APIError(status: .badRequest, errorCode: "InvalidSchemaChange", code: "invalidSchemaChange",
                               message: error.message)
            }
        } else if let error = SchemaGuard(settings: settings).check([EventBatch.collection: written]) {
            throw APIError(status: .badRequest, errorCode: "InvalidSchemaChange", code: "invalidSchemaChange",
                           message: error.message)
        }
        // Each event's key and JSON are written once, here (outside the app's transaction, so beside another
        // upload's commit), for both the `documents` table and the history changeset; an event that came in the
        // stored form keeps the text it came as.
        let inserts = try PrewrittenInserts(batch.documents, texts: batch.texts)
        // The index entries and digests are made here too, outside the lock; the transaction keeps those of the new
        // events.
        let entries = inserts.documents.map { extractor.entry(of: $0, uploader: uploader) }
        let digests = inserts.texts.map(AuditChain.digest(of:))
        let ingestedAt = now()
        let (version, inserted) = try await storage.transaction(appId: settings.appId) { transaction -> (Int64?, Int) in
            let new = try await transaction.insertNew(collection: EventBatch.collection, inserts)
            guard !new.isEmpty else { return (nil, 0) }
            let indexed = new.filter { entries[$0] != nil }
            if !indexed.isEmpty {
                try await transaction.recordAuditBatch(AuditBatchDraft(
                    entries: indexed.map { entries[$0]! }, digests: indexed.map { digests[$0] }, ingestedAt: ingestedAt))
            }
            let changes = new.map { i in
                DocumentChange(collection: EventBatch.collection, primaryKey: inserts.primaryKeys[i],
                               inserted: inserts.documents[i], text: inserts.texts[i])
            }
            let version = try await transaction.appendChangeset(
                ServerChangesetDraft(originFileIdent: 0, originClientVersion: 0, timestamp: Date(), changes: changes))
            return (version, changes.count)
        }
        if let version { await engine?.announce(appId: settings.appId, serverVersion: version) }
        return inserted
    }
}
