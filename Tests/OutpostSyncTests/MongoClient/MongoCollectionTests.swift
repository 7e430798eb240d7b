import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct MongoCollectionTests {
    /// The `Item` collection as a new anonymous user.
    func items(_ t: TestApp) async throws -> (User, MongoCollection) {
        let user = try await t.app.login(credentials: .anonymous)
        return (user, user.mongoClient("mongodb-atlas").database(named: "test_data").collection(withName: "Item"))
    }

    @Test func insertAndFindRoundTripEveryValueType() async throws {
        try await withTestApp { t in
            let (_, items) = try await items(t)
            let oid = ObjectId.generate()
            let uuid = UUID()
            let date = Date(timeIntervalSince1970: 1_700_000_000.123)
            let document: Document = [
                "_id": .objectId(oid), "name": "milk", "qty": 3, "small": .int32(7), "price": 1.25,
                "total": .decimal128(try Decimal128(string: "10.10")), "done": false, "at": .datetime(date),
                "key": .uuid(uuid), "blob": .binary(Data([0, 1, 2])), "tags": ["a", "b"],
                "box": ["w": 2, "h": .null], "note": nil,
            ]
            let id = try await items.insertOne(document)
            #expect(id == .objectId(oid))
            let found = try #require(try await items.findOneDocument(filter: ["_id": .objectId(oid)]))
            let expected: Document = [
                "_id": .objectId(oid), "name": "milk", "qty": .int64(3), "small": .int64(7), "price": 1.25,
                "total": .decimal128(try Decimal128(string: "10.10")), "done": false, "at": .datetime(date),
                "key": .uuid(uuid), "blob": .binary(Data([0, 1, 2])), "tags": ["a", "b"],
                "box": ["w": 2, "h": .null], "note": .null,
            ]
            #expect(found == expected)
            // A document without _id gets an ObjectId.
            let generated = try await items.insertOne(["name": "eggs"])
            #expect(generated.objectIdValue != nil)
            #expect(try await items.count(filter: [:]) == 2)
            #expect(try await items.findOneDocument(filter: ["name": "bread"]) == nil)
            // The server holds the same document.
            let stored = try #require(try await t.server.storage.document(
                appId: t.server.appId, collection: "Item", primaryKey: .objectId(oid)))
            #expect(stored["qty"] == .int(3))
        }
    }

    @Test func findWithFilterOptionsAndCount() async throws {
        try await withTestApp { t in
            let (_, items) = try await items(t)
            let ids = try await items.insertMany([
                ["_id": 1, "name": "a", "qty": 5, "kind": "x"], ["_id": 2, "name": "b", "qty": 1, "kind": "y"],
                ["_id": 3, "name": "c", "qty": 9, "kind": "x"], ["_id": 4, "name": "d", "qty": 5, "kind": "y"],
            ])
            #expect(ids == [1, 2, 3, 4])
            let big = try await items.find(filter: ["qty": ["$gte": 5]])
            #expect(Set(big.compactMap { $0["name"]??.stringValue }) == ["a", "c", "d"])
            let sorted = try await items.find(
                filter: [:], options: FindOptions(3, ["name": 1, "_id": 0], [["qty": -1], ["name": 1]]))
            #expect(sorted == [["name": "c"], ["name": "a"], ["name": "d"]])
            let oldStyle = try await items.find(filter: ["kind": "y"], options: FindOptions(limit: nil, projection: nil, sort: ["qty": 1]))
            #expect(oldStyle.map { $0["_id"] } == [2, 4])
            let first = try await items.findOneDocument(filter: ["kind": "x"], options: FindOptions(0, nil, [["qty": -1]]))
            #expect(first?["name"] == "c")
            #expect(try await items.count(filter: ["kind": "x"]) == 2)
            #expect(try await items.count(filter: [:], limit: 3) == 3)
            #expect(try await items.count(filter: ["$or": [["qty": 1], ["name": "d"]]]) == 2)
            let grouped = try await items.aggregate(pipeline: [
                ["$group": ["_id": "$kind", "total": ["$sum": "$qty"]]], ["$sort": ["_id": 1]],
            ])
            #expect(grouped == [["_id": "x", "total": 14], ["_id": "y", "total": 6]])
        }
    }

    @Test func updatesUpsertsAndDeletes() async throws {
        try await withTestApp { t in
            let (_, items) = try await items(t)
            _ = try await items.insertMany([["_id": 1, "qty": 1, "kind": "x"], ["_id": 2, "qty": 2, "kind": "x"]])
            let one = try await items.updateOneDocument(filter: ["kind": "x"], update: ["$inc": ["qty": 10]])
            #expect(one.matchedCount == 1 && one.modifiedCount == 1 && one.documentId == nil)
            #expect(try await items.findOneDocument(filter: ["_id": 1])?["qty"] == 11)
            let many = try await items.updateManyDocuments(filter: ["kind": "x"], update: ["$set": ["seen": true]])
            #expect(many.matchedCount == 2 && many.modifiedCount == 2)
            let unchanged = try await items.updateManyDocuments(filter: ["kind": "x"], update: ["$set": ["seen": true]])
            #expect(unchanged.matchedCount == 2 && unchanged.modifiedCount == 0)
            let none = try await items.updateOneDocument(filter: ["kind": "z"], update: ["$set": ["qty": 0]])
            #expect(none.matchedCount == 0 && none.modifiedCount == 0)
            let upserted = try await items.updateOneDocument(
                filter: ["kind": "z"], update: ["$set": ["qty": 7]], upsert: true)
            #expect(upserted.matchedCount == 0 && upserted.documentId?.objectIdValue != nil)
            #expect(upserted.upsertedId == upserted.documentId && upserted.objectId == upserted.documentId?.objectIdValue)
            #expect(try await items.findOneDocument(filter: ["kind": "z"])?["qty"] == 7)
            let upsertMany = try await items.updateManyDocuments(
                filter: ["_id": 9], update: ["$set": ["qty": 9]], upsert: true)
            #expect(upsertMany.documentId == 9)
            // deleteOne takes the first match in _id order: _id 1.
            #expect(try await items.deleteOneDocument(filter: ["kind": "x"]) == 1)
            #expect(try await items.findOneDocument(filter: ["_id": 1]) == nil)
            #expect(try await items.deleteManyDocuments(filter: ["qty": ["$gt": 5]]) == 2)
            #expect(try await items.deleteManyDocuments(filter: ["kind": "nothing"]) == 0)
            #expect(try await items.find(filter: [:]).map { $0["_id"] } == [2])
        }
    }

    @Test func badInputFailsWithTheServersMessage() async throws {
        try await withTestApp { t in
            let (user, items) = try await items(t)
            _ = try await items.insertOne(["_id": 1, "name": "a"])
            let regex = await appError { try await items.find(filter: ["name": ["$regex": "a"]]) }
            #expect(regex?.code == .badRequest && regex?.serverCode == "unknownOperator" && regex?.httpStatusCode == 400)
            #expect(regex?.message.contains("$regex") == true)
            let duplicate = await appError { try await items.insertOne(["_id": 1]) }
            #expect(duplicate?.code == .mongoDBError && duplicate?.serverCode == "duplicateKey")
            #expect(duplicate?.httpStatusCode == 409 && duplicate?.message.isEmpty == false)
            let replacement = await appError { try await items.updateOneDocument(filter: [:], update: ["name": "b"]) }
            #expect(replacement?.code == .badRequest && replacement?.message.isEmpty == false)
            let badField = await appError { try await items.insertOne(["a.b": 1]) }
            #expect(badField?.code == .badRequest && badField?.serverCode == "invalidFieldName")
            #expect(badField?.message.contains("a.b") == true)
            let badCollection = await appError {
                try await user.mongoClient("mongodb-atlas").database(named: "db").collection(withName: "$cmd")
                    .find(filter: [:])
            }
            #expect(badCollection?.serverCode == "invalidCollectionName")
            let empty = await appError { try await items.insertMany([]) }
            #expect(empty?.code == .badRequest)
            // A value the server does not store is refused before sending, naming where it is.
            t.transport.clear()
            let pattern = try NSRegularExpression(pattern: "^a")
            let local = await appError { try await items.find(filter: ["tags": ["x", .regex(pattern)]]) }
            #expect(local?.code == .badRequest && local?.message == "'filter.tags[1]' is a regular expression, which outpost-server does not store")
            #expect(t.transport.requests.isEmpty)
            #expect(try await items.count(filter: [:]) == 1)
        }
    }

    @Test func writesTheRulesDenyAreMongoDBErrors() async throws {
        var config = AppDefinition.development(appId: "owned-\(UUID().uuidString.prefix(8))")
        // Each user reads and writes only their own documents (the seed page's role).
        config.defaultRule = .object(["roles": .array([.object([
            "name": .string("owner-read-write"), "apply_when": .object([:]),
            "document_filters": .object([
                "read": .object(["ownerId": .string("%%user.id")]), "write": .object(["ownerId": .string("%%user.id")]),
            ]),
            "read": .bool(true), "write": .bool(true), "insert": .bool(true), "delete": .bool(true),
        ])])])
        try await withTestApp(configuration: config) { t in
            let (user, items) = try await items(t)
            _ = try await items.insertOne(["_id": 1, "ownerId": .string(user.id)])
            let denied = await appError { try await items.insertOne(["_id": 2, "ownerId": "someone-else"]) }
            #expect(denied?.code == .mongoDBError && denied?.httpStatusCode == 403 && denied?.serverCode == "writeDenied")
            #expect(denied?.message.contains("collection \"Item\"") == true)
            // Another user sees nothing and changes nothing.
            try await user.logOut()
            let other = try await t.emailUser()
            let theirs = other.mongoClient("mongodb-atlas").database(named: "db").collection(withName: "Item")
            #expect(try await theirs.count(filter: [:]) == 0)
            #expect(try await theirs.deleteManyDocuments(filter: [:]) == 0)
        }
    }

    @Test func anExpiredAccessTokenIsRefreshedTransparently() async throws {
        let clock = TestClock(Date())
        try await withTestApp(clock: clock.now) { t in
            let (_, items) = try await items(t)
            clock.advance(by: 7_200)
            t.transport.clear()
            _ = try await items.insertOne(["name": "late"])
            #expect(t.transport.requests == ["POST data/Item/insertOne", "POST auth/session", "POST data/Item/insertOne"])
            #expect(try await items.count(filter: [:]) == 1)
        }
    }

    @Test func completionHandlerForms() async throws {
        try await withTestApp { t in
            let (_, items) = try await items(t)
            let inserted: Result<AnyBSON, any Error> = await withCheckedContinuation { c in
                items.insertOne(["_id": 1, "qty": 1]) { c.resume(returning: $0) }
            }
            #expect(try inserted.get() == 1)
            let many: Result<[AnyBSON], any Error> = await withCheckedContinuation { c in
                items.insertMany([["_id": 2, "qty": 2], ["_id": 3, "qty": 3]]) { c.resume(returning: $0) }
            }
            #expect(try many.get() == [2, 3])
            let found: Result<[Document], any Error> = await withCheckedContinuation { c in
                items.find(filter: ["qty": ["$gt": 1]], options: FindOptions(0, nil, [["qty": 1]])) { c.resume(returning: $0) }
            }
            #expect(try found.get().map { $0["_id"] } == [2, 3])
            let one: Result<Document?, any Error> = await withCheckedContinuation { c in
                items.findOneDocument(filter: ["_id": 3]) { c.resume(returning: $0) }
            }
            #expect(try one.get()?["qty"] == 3)
            let counted: Result<Int, any Error> = await withCheckedContinuation { c in
                items.count(filter: [:]) { c.resume(returning: $0) }
            }
            #expect(try counted.get() == 3)
            let updated: Result<UpdateResult, any Error> = await withCheckedContinuation { c in
                items.updateOneDocument(filter: ["_id": 1], update: ["$set": ["qty": 5]]) { c.resume(returning: $0) }
            }
            #expect(try updated.get().modifiedCount == 1)
            let updatedMany: Result<UpdateResult, any Error> = await withCheckedContinuation { c in
                items.updateManyDocuments(filter: [:], update: ["$inc": ["qty": 1]]) { c.resume(returning: $0) }
            }
            #expect(try updatedMany.get().matchedCount == 3)
            let aggregated: Result<[Document], any Error> = await withCheckedContinuation { c in
                items.aggregate(pipeline: [["$count": "n"]]) { c.resume(returning: $0) }
            }
            #expect(try aggregated.get() == [["n": 3]])
            let deletedOne: Result<Int, any Error> = await withCheckedContinuation { c in
                items.deleteOneDocument(filter: ["_id": 1]) { c.resume(returning: $0) }
            }
            #expect(try deletedOne.get() == 1)
            let deletedMany: Result<Int, any Error> = await withCheckedContinuation { c in
                items.deleteManyDocuments(filter: [:]) { c.resume(returning: $0) }
            }
            #expect(try deletedMany.get() == 2)
            let failed: Result<[Document], any Error> = await withCheckedContinuation { c in
                items.find(filter: ["a": ["$where": "1"]]) { c.resume(returning: $0) }
            }
            #expect(throws: AppError.self) { try failed.get() }
        }
    }
}
