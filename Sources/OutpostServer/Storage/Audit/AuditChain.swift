import Crypto
import Foundation
import OutpostCore

/// The tamper-evident chain of an app's event ingests: the hashing, and the pure steps the storages apply when they
/// commit a batch or a retention removal, so every driver links and prunes batches identically. Outpost-only.
///
/// A batch's hash is the SHA-256 (lowercase hex) of the UTF-8 text `previous + "\n" + d₁ + "\n" + … + dₙ`, where
/// `previous` is the hash of the app's batch before it (64 zeros for the first) and each `dᵢ` the SHA-256 of an
/// event's stored Extended JSON text, in ingest order. Hashing digests rather than the texts themselves lets
/// retention delete an event and keep its digest in the batch, so older batches still verify; it also keeps the
/// work done under the app's lock at commit small (the texts are digested before the transaction).
package enum AuditChain {
    /// The `previousHash` of an app's first batch.
    package static let genesis = String(repeating: "0", count: 64)

    /// The head of an app's chain: its last batch's sequence number and hash, and how many indexed events it has.
    package struct Head: Hashable, Sendable {
        package var sequence: Int64
        package var hash: String
        package var events: Int64

        package init(sequence: Int64, hash: String, events: Int64) {
            self.sequence = sequence
            self.hash = hash
            self.events = events
        }

        /// The head of an app with no batch yet.
        package static let empty = Head(sequence: 0, hash: AuditChain.genesis, events: 0)
    }

    /// The SHA-256 of a stored text, as 64 lowercase hex digits.
    package static func digest(of text: String) -> String {
        var text = text
        return text.withUTF8 { hex(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
    }

    /// A batch's hash: see the type's description.
    package static func hash(previous: String, digests: some Sequence<String>) -> String {
        var hasher = SHA256()
        hasher.update(data: Array(previous.utf8))
        let newline: [UInt8] = [0x0A]
        for digest in digests {
            hasher.update(data: newline)
            hasher.update(data: Array(digest.utf8))
        }
        return hex(hasher.finalize())
    }

    /// The stored record of a batch committed after `head`, and the head after it (with `inserted` more events).
    package static func link(_ draft: AuditBatchDraft, after head: Head, inserted: Int) -> (AuditBatchRecord, Head) {
        let hash = hash(previous: head.hash, digests: draft.digests)
        let ids = draft.entries.map(\.eventId)
        let record = AuditBatchRecord(
            sequence: head.sequence + 1, ingestedAt: draft.ingestedAt, eventCount: ids.count,
            firstEvent: ids.first ?? "", lastEvent: ids.last ?? "", eventIds: ids, prunedDigests: [:], prunedCount: 0,
            previousHash: head.hash, hash: hash)
        return (record, Head(sequence: record.sequence, hash: hash, events: head.events + Int64(inserted)))
    }

    /// A batch after retention removed some of its events: their digests are kept. Once every event is removed and
    /// the kept digests still give the batch's hash, the batch is spent (ids and digests dropped); when they do not
    /// (an event was changed before it was removed), they stay, so verification goes on naming the batch.
    /// A removal without a digest (its document was already gone) keeps nothing, and verification reports the event
    /// as missing.
    package static func removing(_ removals: [AuditRemoval], from batch: AuditBatchRecord) -> AuditBatchRecord {
        var batch = batch
        guard !batch.isSpent else { return batch }
        let ids = Set(batch.eventIds)
        for removal in removals where ids.contains(removal.record.entry.eventId) {
            let id = removal.record.entry.eventId
            guard batch.prunedDigests[id] == nil, let digest = removal.digest else { continue }
            batch.prunedDigests[id] = digest
            batch.prunedCount += 1
        }
        if batch.prunedCount == batch.eventCount,
            hash(previous: batch.previousHash, digests: batch.eventIds.map { batch.prunedDigests[$0] ?? "" }) == batch.hash
        {
            batch.eventIds = []
            batch.prunedDigests = [:]
        }
        return batch
    }

    // MARK: Stored forms

    /// The ids of a batch as one text: the 24-digit ids one after the other.
    package static func idsText(_ ids: [String]) -> String { ids.joined() }

    /// The ids of ``idsText(_:)``.
    package static func ids(fromText text: String) -> [String] {
        let bytes = Array(text.utf8)
        return stride(from: 0, to: bytes.count - bytes.count % 24, by: 24).map {
            String(decoding: bytes[$0..<$0 + 24], as: UTF8.self)
        }
    }

    /// The kept digests as a JSON object (nil when there are none).
    package static func prunedText(_ digests: [String: String]) -> String? {
        digests.isEmpty ? nil : JSONValue.object(digests.mapValues(JSONValue.string)).text
    }

    /// The digests of ``prunedText(_:)``.
    package static func pruned(fromText text: String?) -> [String: String] {
        guard let text, case .object(let fields)? = JSONValue.parse(text) else { return [:] }
        return fields.compactMapValues { if case .string(let s) = $0 { s } else { nil } }
    }

    /// An index entry's objects as stored beside it: `[["<class>","<key>"],…]` (nil when none), written straight
    /// into bytes (ingest writes one per event).
    package static func objectsText(_ objects: [AuditObjectKey]) -> String? {
        guard !objects.isEmpty else { return nil }
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(objects.count * 48)
        for (i, object) in objects.enumerated() {
            out.append(contentsOf: i == 0 ? [UInt8(ascii: "[")] : Array(",[".utf8))
            JSONValue.writeString(object.className, to: &out)
            out.append(UInt8(ascii: ","))
            JSONValue.writeString(object.primaryKey, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    package static func objects(fromText text: String?) -> [AuditObjectKey] {
        guard let text, case .array(let items)? = JSONValue.parse(text) else { return [] }
        return items.compactMap { item in
            guard case .array(let pair) = item, pair.count == 2, case .string(let c) = pair[0], case .string(let k) = pair[1]
            else { return nil }
            return AuditObjectKey(className: c, primaryKey: k)
        }
    }

    /// An index entry's user values as stored beside it: a JSON array of strings (nil when none).
    package static func usersText(_ users: [String]) -> String? {
        guard !users.isEmpty else { return nil }
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (i, user) in users.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(user, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    package static func users(fromText text: String?) -> [String] {
        guard let text, case .array(let items)? = JSONValue.parse(text) else { return [] }
        return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    /// The `pk_key` of the `AuditEvent` document with this id (an invalid id, which the index never holds, as the key
    /// of a string, which matches no event).
    package static func documentKey(of eventId: String) -> String {
        PrimaryKeyText.make((try? ObjectId(string: eventId)).map(Value.objectId) ?? .string(eventId))
    }

    /// Stored texts keyed by their event id (the hex digits of their `pk_key`).
    package static func textsById(_ rows: [(key: String, body: String)]) -> [String: String] {
        var texts: [String: String] = [:]
        let prefix = #"{"$oid":""#
        for (key, body) in rows where key.hasPrefix(prefix) && key.utf8.count == prefix.utf8.count + 26 {
            texts[String(key.dropFirst(prefix.count).prefix(24))] = body
        }
        return texts
    }

    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest {
            out.append(hexDigit(byte >> 4))
            out.append(hexDigit(byte & 0xF))
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
}
