import Foundation
import OutpostCore

/// A collection on the server, read and written over the Data API as the client's user, as Realm Swift's
/// `MongoCollection`.
///
/// ```swift
/// let items = user.mongoClient("mongodb-atlas").database(named: "todo").collection(withName: "Item")
/// let id = try await items.insertOne(["name": "milk", "owner_id": .string(user.id)])
/// let mine = try await items.find(filter: ["owner_id": .string(user.id)])
/// ```
///
/// Filters are MongoDB match expressions (`$eq $ne $gt $gte $lt $lte $in $nin $exists $not $and $or $nor`, dotted
/// paths); updates use `$set $unset $inc $push`. What the server refuses fails with an ``AppError`` carrying its
/// message (`.badRequest` for bad input, `.mongoDBError` for a duplicate `_id` or a write the rules deny). Every
/// method also has a completion form, called on an arbitrary thread.
public final class MongoCollection: Sendable {
    let database: MongoDatabase
    /// The collection name.
    public let name: String

    init(database: MongoDatabase, name: String) {
        self.database = database
        self.name = name
    }

    var user: User { database.client.user }

    /// Inserts a document; one without `_id` gets a new ObjectId. Returns the `_id`.
    public func insertOne(_ document: Document) async throws -> AnyBSON {
        let answer = try await call("insertOne", ["document": try BSONConversion.json(document, path: "document")])
        return try bson(answer, "insertedId")
    }

    /// Inserts documents in one request (all or none). Returns their `_id`s in order.
    public func insertMany(_ documents: [Document]) async throws -> [AnyBSON] {
        var items: [JSONValue] = []
        for (i, document) in documents.enumerated() {
            items.append(try BSONConversion.json(document, path: "documents[\(i)]"))
        }
        let answer = try await call("insertMany", ["documents": .array(items)])
        guard case .array(let ids)? = answer.field("insertedIds") else { throw malformed("insertedIds") }
        var out: [AnyBSON] = []
        for id in ids { out.append(try BSONConversion.bson(json: id, path: "insertedIds")) }
        return out
    }

    /// The documents matching `filter` that the user may read.
    public func find(filter: Document, options: FindOptions = FindOptions()) async throws -> [Document] {
        try await find(fields: try findFields(filter, options, one: false))
    }

    /// The first document matching `filter` (in the options' sort order), or nil.
    public func findOneDocument(filter: Document, options: FindOptions = FindOptions()) async throws -> Document? {
        try await findOne(fields: try findFields(filter, options, one: true))
    }

    /// How many documents match `filter`, at most `limit` when it is given and positive.
    public func count(filter: Document, limit: Int? = nil) async throws -> Int {
        let answer = try await call("count", ["filter": try BSONConversion.json(filter, path: "filter")])
        guard case .int(let n)? = answer.field("count") else { throw malformed("count") }
        if let limit, limit > 0 { return min(Int(n), limit) }
        return Int(n)
    }

    /// Deletes the first document matching `filter` (in `_id` order). Returns how many were deleted (0 or 1).
    public func deleteOneDocument(filter: Document) async throws -> Int {
        try await delete("deleteOne", filter)
    }

    /// Deletes every document matching `filter`. Returns how many were deleted.
    public func deleteManyDocuments(filter: Document) async throws -> Int {
        try await delete("deleteMany", filter)
    }

    /// Applies `update` (`$set`, `$unset`, `$inc`, `$push`) to the first document matching `filter`; with `upsert`,
    /// inserts a document made from the filter's equalities when none matches.
    public func updateOneDocument(filter: Document, update: Document, upsert: Bool? = nil) async throws
        -> UpdateResult
    {
        try await self.update("updateOne", filter, update, upsert ?? false)
    }

    /// Applies `update` to every document matching `filter`; with `upsert`, inserts one when none matches.
    public func updateManyDocuments(filter: Document, update: Document, upsert: Bool? = nil) async throws
        -> UpdateResult
    {
        try await self.update("updateMany", filter, update, upsert ?? false)
    }

    /// Runs an aggregation pipeline (`$match $sort $limit $skip $project $count $group`) over the documents the user
    /// may read.
    public func aggregate(pipeline: [Document]) async throws -> [Document] {
        var stages: [JSONValue] = []
        for (i, stage) in pipeline.enumerated() { stages.append(try BSONConversion.json(stage, path: "pipeline[\(i)]")) }
        return try documents(try await call("aggregate", ["pipeline": .array(stages)]), "documents")
    }
}
