import Foundation

/// The audit side of one event ingest: the index entries of the events it inserted, in ingest order, each with the
/// SHA-256 digest of the text stored for it (``AuditChain/digest(of:)``). Outpost-only.
///
/// Given to ``StorageTransaction/recordAuditBatch(_:)`` inside the transaction that inserts the events, so an event
/// and its index rows commit together. The storage links the batch into the app's chain when it commits: it takes
/// the next sequence number and hashes the previous batch's hash with the digests (``AuditChain/hash(previous:digests:)``),
/// under the app's transaction lock, so batches are chained in commit order.
public struct AuditBatchDraft: Hashable, Sendable {
    public let entries: [AuditIndexEntry]
    /// One per entry: the digest of the event's stored text.
    public let digests: [String]
    /// When the batch was ingested.
    public let ingestedAt: Date
    /// Each entry's objects and user values as the index stores them beside it (``AuditChain/objectsText(_:)``,
    /// ``AuditChain/usersText(_:)``), written with the draft, before the app's transaction commits.
    package let storedObjects: [String?]
    package let storedUsers: [String?]

    public init(entries: [AuditIndexEntry], digests: [String], ingestedAt: Date) {
        precondition(entries.count == digests.count, "an audit batch needs one digest per entry")
        self.entries = entries
        self.digests = digests
        self.ingestedAt = ingestedAt
        storedObjects = entries.map { AuditChain.objectsText($0.objects) }
        storedUsers = entries.map { AuditChain.usersText($0.users) }
    }
}

/// One event that retention removes (``StorageTransaction/removeAuditEvents(_:)``): its index rows go, and the digest
/// of its stored text is kept in its batch so the chain still verifies. Outpost-only.
public struct AuditRemoval: Hashable, Sendable {
    public var record: AuditEventRecord
    /// The digest of the stored text (nil when the document is already gone: the batch then cannot be verified,
    /// which verification reports).
    public var digest: String?

    public init(record: AuditEventRecord, digest: String?) {
        self.record = record
        self.digest = digest
    }
}
