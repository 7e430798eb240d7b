import Foundation

/// One link of an app's audit chain as stored: a batch of ingested events and the hash that chains it to the batch
/// before. Outpost-only.
///
/// `hash` is ``AuditChain/hash(previous:digests:)`` of `previousHash` and the digests of the batch's events in ingest
/// order. The events are named by ``eventIds``; the digest of each is recomputed from its stored document, or read
/// from ``prunedDigests`` once retention removed it. A batch all of whose events were removed, and whose hash still
/// matched then, is *spent*: its ids and digests are dropped and only its hash is kept, which the next batch's
/// `previousHash` must equal.
public struct AuditBatchRecord: Hashable, Sendable {
    /// 1, 2, 3, … per app, in commit order.
    public var sequence: Int64
    public var ingestedAt: Date
    public var eventCount: Int
    /// The first and last event of the batch (kept when the batch is spent).
    public var firstEvent: String
    public var lastEvent: String
    /// The events' ids in ingest order; empty once spent.
    public var eventIds: [String]
    /// The digests of the events retention removed, by id; empty once spent.
    public var prunedDigests: [String: String]
    /// How many of its events retention removed.
    public var prunedCount: Int
    public var previousHash: String
    public var hash: String

    public init(
        sequence: Int64, ingestedAt: Date, eventCount: Int, firstEvent: String, lastEvent: String, eventIds: [String],
        prunedDigests: [String: String], prunedCount: Int, previousHash: String, hash: String
    ) {
        self.sequence = sequence
        self.ingestedAt = ingestedAt
        self.eventCount = eventCount
        self.firstEvent = firstEvent
        self.lastEvent = lastEvent
        self.eventIds = eventIds
        self.prunedDigests = prunedDigests
        self.prunedCount = prunedCount
        self.previousHash = previousHash
        self.hash = hash
    }

    /// Whether retention removed all its events and dropped their digests (only the hash is left to check).
    public var isSpent: Bool { eventIds.isEmpty && eventCount > 0 }
}
