import Foundation
import OutpostCore

/// Deletes the app's `AuditEvent` documents older than the retention (`events.retention_days`), with their audit index
/// rows, as part of ``Housekeeping``. Outpost-only.
///
/// The index finds them (newest expired first, a page at a time); each page is deleted in one storage transaction with
/// one history changeset, as the Data API deletes documents, so sync clients subscribed to `AuditEvent` see the
/// deletions. The same transaction removes the index rows and keeps each event's digest in its chain batch
/// (``StorageTransaction/removeAuditEvents(_:)``), so the chain still verifies. Pages are bounded, so a first sweep over
/// years of events neither holds them all nor holds the app's transaction lock for long.
struct AuditRetention: Sendable {
    let storage: any ServerStorage
    let appId: String
    /// How long an event is kept after its timestamp.
    let maxAge: Duration

    /// Events deleted per transaction.
    static let pageSize = 500

    /// Deletes the events whose timestamp is before `now - maxAge`; returns how many.
    func sweep(now: Date) async throws -> Int {
        let cutoff = now.addingTimeInterval(-Self.seconds(maxAge)).millisecondsSince1970
        var search = AuditSearch(until: cutoff - 1)
        var deleted = 0
        while true {
            let page = try await storage.auditEvents(appId: appId, matching: search, limit: Self.pageSize)
            guard let last = page.last else { return deleted }
            let removals = page.map { AuditRemoval(record: $0, digest: $0.text.map(AuditChain.digest(of:))) }
            try await storage.transaction(appId: appId) { transaction in
                var changes: [DocumentChange] = []
                for record in page {
                    guard let text = record.text, let id = try? ObjectId(string: record.entry.eventId) else { continue }
                    let before = try StorageCoding.decodeDocument(text)
                    guard try await transaction.deleteDocument(collection: EventBatch.collection, primaryKey: .objectId(id))
                    else { continue }
                    changes.append(DocumentChange(
                        collection: EventBatch.collection, primaryKey: .objectId(id), before: before, after: nil,
                        changedFields: []))
                }
                if !changes.isEmpty { _ = try await transaction.appendChangeset(ServerChangesetDraft(changes: changes)) }
                try await transaction.removeAuditEvents(removals)
            }
            deleted += page.count
            guard page.count == Self.pageSize else { return deleted }
            search.after = AuditSearch.Cursor(last.entry)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
