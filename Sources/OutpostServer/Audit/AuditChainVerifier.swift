import Foundation

/// Checks an app's audit chain (``AuditChain``): walks its batches in order, recomputes each batch's hash from the
/// stored texts of its events (or the digests retention kept) and the previous batch's hash, and names the first batch
/// that does not match. Outpost-only.
///
/// What a pass proves: every event the server ingested through the event upload is still stored with the text it was
/// stored with, or was removed by retention, and no batch was removed, reordered or changed since — unless whoever
/// changed them also rewrote every later batch's hashes, which someone with write access to the database can do.
/// Record the head hash (``Report/headHash``) somewhere else from time to time to catch that: a chain rewritten before
/// a recorded head no longer leads to it.
///
/// Memory is bounded: batches are read 100 at a time, and each batch's texts 1,000 at a time.
public struct AuditChainVerifier: Sendable {
    public let storage: any AuditStorage
    public let appId: String

    static let batchPage = 100
    static let textPage = 1000

    public init(storage: any AuditStorage, appId: String) {
        self.storage = storage
        self.appId = appId
    }

    /// What a verification found.
    public struct Report: Sendable, Hashable {
        /// The batches checked (up to and including a mismatch).
        public var batches: Int
        /// The events whose stored text was checked.
        public var events: Int
        /// The hash of the last batch checked (the chain's head when it verified).
        public var headHash: String
        /// The first batch that does not match; nil when the whole chain verified.
        public var firstMismatch: Mismatch?

        public var ok: Bool { firstMismatch == nil }
    }

    /// A batch that does not match, and why.
    public struct Mismatch: Sendable, Hashable {
        public var sequence: Int64
        public var ingestedAt: Date
        public var reason: String
    }

    public func verify() async throws -> Report {
        var report = Report(batches: 0, events: 0, headHash: AuditChain.genesis, firstMismatch: nil)
        var expected: Int64 = 1
        while true {
            let page = try await storage.auditBatches(appId: appId, after: expected - 1, limit: Self.batchPage)
            for batch in page {
                report.batches += 1
                if let reason = try await check(batch, expected: expected, previousHash: report.headHash, report: &report) {
                    report.firstMismatch = Mismatch(sequence: batch.sequence, ingestedAt: batch.ingestedAt, reason: reason)
                    return report
                }
                report.headHash = batch.hash
                expected = batch.sequence + 1
            }
            if page.count < Self.batchPage { return report }
        }
    }

    /// Why the batch does not match, or nil when it does.
    private func check(_ batch: AuditBatchRecord, expected: Int64, previousHash: String, report: inout Report)
        async throws -> String?
    {
        if batch.sequence != expected {
            return expected == batch.sequence - 1
                ? "batch \(expected) is missing" : "batches \(expected) to \(batch.sequence - 1) are missing"
        }
        guard batch.previousHash == previousHash else {
            return expected == 1
                ? "its previous hash is not the start of a chain"
                : "its previous hash is not the hash of batch \(expected - 1)"
        }
        if batch.isSpent { return nil }  // every event removed by retention, its hash checked then
        guard batch.eventIds.count == batch.eventCount else {
            return "it names \(batch.eventIds.count) events instead of \(batch.eventCount)"
        }
        var digests: [String] = []
        digests.reserveCapacity(batch.eventIds.count)
        for start in stride(from: 0, to: batch.eventIds.count, by: Self.textPage) {
            let ids = Array(batch.eventIds[start..<min(start + Self.textPage, batch.eventIds.count)])
            let texts = try await storage.auditEventTexts(appId: appId, eventIds: ids)
            for id in ids {
                if let text = texts[id] {
                    digests.append(AuditChain.digest(of: text))
                    report.events += 1
                } else if let kept = batch.prunedDigests[id] {
                    digests.append(kept)
                } else {
                    return "event \(id) is missing"
                }
            }
        }
        guard AuditChain.hash(previous: batch.previousHash, digests: digests) == batch.hash else {
            return "its events do not give its hash: an event was changed"
        }
        return nil
    }
}
