import Foundation

/// The audit index of each app's `AuditEvent` collection, and the hash chain of its event ingests. Outpost-only.
///
/// Event ingest (``EventIngest``) extracts from each event what a search needs (``AuditIndexEntry``: user, activity,
/// type, time and the objects it names) and records it with ``StorageTransaction/recordAuditBatch(_:)`` in the
/// transaction that stores the events, so an event and its index rows commit together. This protocol reads the index
/// back — a search by user or object costs about the page it returns, not the collection — and the chain that
/// ``AuditChainVerifier`` checks.
///
/// Its own protocol, beside ``DocumentStorage``, because it is a separate concern with tables of its own that only
/// the admin API's audit routes, housekeeping and event ingest use. Part of ``ServerStorage``; every method is safe to
/// call from many tasks at once. Reads see committed state.
public protocol AuditStorage: Sendable {
    /// One page of the app's indexed events that match `search`: at most `limit`, newest first (timestamp, then event
    /// id, descending), after `search.after`. Each comes with its stored document's text (nil when it is gone).
    func auditEvents(appId: String, matching search: AuditSearch, limit: Int) async throws -> [AuditEventRecord]

    /// How many indexed events match `search` (its cursor is ignored).
    func auditEventCount(appId: String, matching search: AuditSearch) async throws -> Int

    /// The app's chain batches with a sequence number after `sequence`, in increasing order, at most `limit`.
    func auditBatches(appId: String, after sequence: Int64, limit: Int) async throws -> [AuditBatchRecord]

    /// The stored texts of the app's `AuditEvent` documents with these ids (24 hex digits), by id; ids without a
    /// document are left out.
    func auditEventTexts(appId: String, eventIds: [String]) async throws -> [String: String]

    /// How many events were ingested in each hour since `date` (hours since 1970 → events), from the chain's batches.
    func auditEventsIngestedPerHour(appId: String, since date: Date) async throws -> [Int64: Int]
}
