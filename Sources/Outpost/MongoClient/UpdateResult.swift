import OutpostCore

/// The outcome of ``MongoCollection/updateOneDocument(filter:update:upsert:)`` and
/// ``MongoCollection/updateManyDocuments(filter:update:upsert:)``, as Realm Swift's `UpdateResult`.
public struct UpdateResult: Sendable, Hashable {
    /// How many documents matched the filter.
    public let matchedCount: UInt
    /// How many documents the update changed (a matched document the update leaves as it was is not counted).
    public let modifiedCount: UInt
    /// The `_id` of the document an upsert inserted, or nil.
    public let documentId: AnyBSON?

    /// The `_id` of the upserted document when it is an ObjectId (Realm's older name).
    public var objectId: ObjectId? { documentId?.objectIdValue }

    /// The `_id` of the upserted document (the Data API's name for ``documentId``).
    ///
    /// Outpost-only.
    public var upsertedId: AnyBSON? { documentId }

    public init(matchedCount: UInt, modifiedCount: UInt, documentId: AnyBSON?) {
        self.matchedCount = matchedCount
        self.modifiedCount = modifiedCount
        self.documentId = documentId
    }
}
