import Foundation
import OutpostCore

/// One entry of an app's history: the effect of one integrated client changeset, one Data API request, or one
/// compensating write, at one server version.
public struct ServerChangeset: Sendable, Hashable, Codable {
    public var serverVersion: Int64
    public var draft: ServerChangesetDraft

    public init(serverVersion: Int64, draft: ServerChangesetDraft) {
        self.serverVersion = serverVersion
        self.draft = draft
    }

    /// The salt a download cursor at this version carries (``DownloadCursor/salt``): derived from the version, the
    /// origin, the time and the size of the changeset, so that it needs no storage and reads the same from memory
    /// and from the database (the time is stored as the exact `Double`). Another history's changeset at the same
    /// version (a server restored from a backup went on differently) has another salt. 52 bits, non-negative.
    public var salt: Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, byte by byte
        func mix(_ value: UInt64) {
            var v = value
            for _ in 0..<8 {
                hash = (hash ^ (v & 0xff)) &* 0x0000_0100_0000_01b3
                v >>= 8
            }
        }
        mix(UInt64(bitPattern: serverVersion))
        mix(UInt64(bitPattern: draft.originFileIdent))
        mix(UInt64(bitPattern: draft.originClientVersion))
        mix(draft.timestamp.timeIntervalSinceReferenceDate.bitPattern)
        mix(UInt64(bitPattern: draft.audience ?? -1))
        mix(UInt64(draft.changes.count))
        return Int64(hash & 0x000f_ffff_ffff_ffff)
    }
}

/// A changeset before it has a server version.
public struct ServerChangesetDraft: Sendable, Hashable, Codable {
    /// The client file it came from (0 for the server itself: Data API, admin API, compensations).
    public var originFileIdent: Int64
    /// The client version it had in its file (0 when it did not come from a client).
    public var originClientVersion: Int64
    public var timestamp: Date
    /// When set, only this client file receives the changeset (compensating writes).
    public var audience: Int64?
    public var changes: [DocumentChange]
    /// For a compensating write: what was refused, reported to the audience with error 231 when it downloads
    /// this changeset (again after a reconnect if it had not integrated it yet).
    public var compensation: Compensation?

    public init(
        originFileIdent: Int64 = 0, originClientVersion: Int64 = 0, timestamp: Date = Date(), audience: Int64? = nil,
        changes: [DocumentChange], compensation: Compensation? = nil
    ) {
        self.originFileIdent = originFileIdent
        self.originClientVersion = originClientVersion
        self.timestamp = timestamp
        self.audience = audience
        self.changes = changes
        self.compensation = compensation
    }
}

/// The refused writes of one uploaded client changeset.
public struct Compensation: Sendable, Hashable, Codable {
    /// The client version of the changeset that held the refused writes.
    public var rejectedClientVersion: Int64
    public var rejections: [Rejection]

    public init(rejectedClientVersion: Int64, rejections: [Rejection]) {
        self.rejectedClientVersion = rejectedClientVersion
        self.rejections = rejections
    }

    /// One refused write: the class, the object's primary key and why (the protocol's ``RejectedUpdate``).
    public typealias Rejection = RejectedUpdate
}

/// What happened to one document: its state before and after (nil when it did not exist), and which top-level
/// fields changed. Sessions use `before` and `after` to decide whether the document enters, stays in or leaves
/// each client's view.
public struct DocumentChange: Sendable, Hashable, Codable {
    public var collection: String
    public var primaryKey: Value
    public var before: Document?
    public var after: Document?
    public var changedFields: [String]
    /// `after` already written as Extended JSON (``Document/extendedJSONText``), when the writer of the change had
    /// it: storage then writes it as it is instead of writing the document again. Not part of the change's value
    /// (equality, hashing, `Codable`).
    package var afterText: String?
    /// Set by writers that know `after` is a new document (`before` is nil) whose `_id` is the primary key and all of
    /// whose fields changed (`changedFields` is `after.sortedKeys`): its stored text then leaves `primaryKey` and
    /// `changedFields` out (almost half of a new object's history entry), and readers take them from `after`.
    /// Not part of the change's value (equality, hashing, `Codable`).
    package var isWholeNewDocument = false

    public init(collection: String, primaryKey: Value, before: Document?, after: Document?, changedFields: [String]) {
        self.collection = collection
        self.primaryKey = primaryKey
        self.before = before
        self.after = after
        self.changedFields = changedFields
    }

    /// A change whose `after` comes with its Extended JSON text, which must equal `after.extendedJSONText`.
    package init(collection: String, primaryKey: Value, inserted after: Document, text: String) {
        self.init(collection: collection, primaryKey: primaryKey, before: nil, after: after,
                  changedFields: after.sortedKeys)
        afterText = text
        isWholeNewDocument = after["_id"] == primaryKey
    }

    /// Whether the change created the document (it did not exist before and does after).
    package var isCreate: Bool { before == nil && after != nil }

    private enum CodingKeys: String, CodingKey {
        case collection, primaryKey, before, after, changedFields
    }

    /// Reads both stored forms: the full one, and that of a new document without `primaryKey` and `changedFields`
    /// (``isWholeNewDocument``), which come from `after`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        collection = try c.decode(String.self, forKey: .collection)
        before = try c.decodeIfPresent(Document.self, forKey: .before)
        after = try c.decodeIfPresent(Document.self, forKey: .after)
        if !c.contains(.primaryKey), before == nil, let id = after?["_id"] {
            primaryKey = id
        } else {
            primaryKey = try c.decode(Value.self, forKey: .primaryKey)
        }
        if !c.contains(.changedFields), before == nil, let after {
            changedFields = after.sortedKeys
        } else {
            changedFields = try c.decode([String].self, forKey: .changedFields)
        }
    }

    public static func == (lhs: DocumentChange, rhs: DocumentChange) -> Bool {
        lhs.collection == rhs.collection && lhs.primaryKey == rhs.primaryKey && lhs.before == rhs.before
            && lhs.after == rhs.after && lhs.changedFields == rhs.changedFields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(collection)
        hasher.combine(primaryKey)
        hasher.combine(before)
        hasher.combine(after)
        hasher.combine(changedFields)
    }
}
