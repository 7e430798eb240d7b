import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct DataAPITests {
    @Test func crudRoundTrip() async throws {
        try await withDataServer { server in
            let user = try await server.newUser()
            let inserted = try await server.ok("Item", "insertOne", #"{"document": {"name": "apple", "qty": 5}}"#, as: user)
            let generated = try #require(inserted["insertedId"]?["$oid"]?.stringValue)
            #expect(generated.count == 24)

            let many = try await server.ok("Item", "insertMany", """
                {"documents": [{"_id": "b", "name": "banana", "qty": 2, "tags": ["y"]},
                               {"_id": "c", "name": "cherry", "qty": 9, "when": {"$date": {"$numberLong": "1700000000000"}}}]}
                """, as: user)
            #expect(many["insertedIds"] == .array([.string("b"), .string("c")]))

            // Duplicate _id → 409, nothing inserted.
            let duplicate = try await server.data("Item", "insertOne", #"{"document": {"_id": "b", "name": "again"}}"#, as: user)
            #expect(duplicate.status == 409, "\(duplicate.json.text)")
            #expect(duplicate.json["code"] == .string("duplicateKey"))
            let dupMany = try await server.data("Item", "insertMany", #"{"documents": [{"_id": "z"}, {"_id": "z"}]}"#, as: user)
            #expect(dupMany.status == 409)

            let one = try await server.ok("Item", "findOne", #"{"filter": {"_id": "c"}}"#, as: user)
            #expect(one["document"]?["name"] == .string("cherry"))
            #expect(one["document"]?["when"]?["$date"] != nil)
            let missing = try await server.ok("Item", "findOne", #"{"filter": {"_id": "nope"}}"#, as: user)
            #expect(missing["document"] == .null)

            let sorted = try await server.ok("Item", "find", #"{"filter": {"qty": {"$gte": 2}}, "sort": {"qty": -1}}"#, as: user)
            #expect(sorted["documents"]?.items.compactMap { $0["name"]?.stringValue } == ["cherry", "apple", "banana"])
            let paged = try await server.ok(
                "Item", "find", #"{"sort": {"qty": 1}, "skip": 1, "limit": 1, "projection": {"name": 1, "_id": 0}}"#, as: user)
            #expect(paged["documents"] == .array([.object(["name": .string("apple")])]))
            let excluded = try await server.ok("Item", "find", #"{"filter": {"_id": "b"}, "projection": {"tags": 0}}"#, as: user)
            #expect(excluded["documents"]?.items.first?["tags"] == nil)
            #expect(excluded["documents"]?.items.first?["qty"] == .int(2))
            let inFilter = try await server.ok(
                "Item", "find", #"{"filter": {"$or": [{"name": {"$in": ["apple"]}}, {"tags": {"$exists": true}}]}}"#, as: user)
            #expect(inFilter["documents"]?.items.count == 2)

            #expect(try await server.ok("Item", "count", #"{}"#, as: user)["count"] == .int(3))
            #expect(try await server.ok("Item", "count", #"{"filter": {"qty": {"$lt": 5}}}"#, as: user)["count"] == .int(1))

            #expect(try await server.ok("Item", "deleteOne", #"{"filter": {"_id": "b"}}"#, as: user)["deletedCount"] == .int(1))
            #expect(try await server.ok("Item", "deleteOne", #"{"filter": {"_id": "b"}}"#, as: user)["deletedCount"] == .int(0))
            #expect(try await server.ok("Item", "deleteMany", #"{"filter": {}}"#, as: user)["deletedCount"] == .int(2))
            #expect(try await server.ok("Item", "find", #"{}"#, as: user)["documents"] == .array([]))
        }
    }

    @Test func updateOperators() async throws {
        try await withDataServer { server in
            let user = try await server.newUser()
            try await server.ok("Item", "insertOne", #"{"document": {"_id": 1, "n": 1, "d": 1.5, "list": [1], "gone": true}}"#, as: user)
            let result = try await server.ok("Item", "updateOne", """
                {"filter": {"_id": 1}, "update": {"$set": {"name": "x", "meta.color": "red"}, "$unset": {"gone": ""},
                 "$inc": {"n": 2, "d": 1, "fresh": 5}, "$push": {"list": 2, "other": {"$each": ["a", "b"]}}}}
                """, as: user)
            #expect(result["matchedCount"] == .int(1))
            #expect(result["modifiedCount"] == .int(1))
            #expect(result["upsertedId"] == nil)
            let stored = try #require(try await server.storage.document(appId: server.appId, collection: "Item", primaryKey: .int(1)))
            #expect(stored == [
                "_id": .int(1), "n": .int(3), "d": .double(2.5), "fresh": .int(5), "name": .string("x"),
                "meta": .document(["color": .string("red")]), "list": .array([.int(1), .int(2)]),
                "other": .array([.string("a"), .string("b")]),
            ])

            // No change: matched but not modified.
            let same = try await server.ok("Item", "updateOne", #"{"filter": {"_id": 1}, "update": {"$set": {"name": "x"}}}"#, as: user)
            #expect(same["matchedCount"] == .int(1))
            #expect(same["modifiedCount"] == .int(0))

            // updateMany and upsert.
            try await server.ok("Item", "insertMany", #"{"documents": [{"_id": 2, "k": "a"}, {"_id": 3, "k": "a"}]}"#, as: user)
            let updated = try await server.ok("Item", "updateMany", #"{"filter": {"k": "a"}, "update": {"$inc": {"hits": 1}}}"#, as: user)
            #expect(updated["matchedCount"] == .int(2))
            #expect(updated["modifiedCount"] == .int(2))
            let upserted = try await server.ok(
                "Item", "updateOne", #"{"filter": {"k": "new"}, "update": {"$set": {"v": 1}}, "upsert": true}"#, as: user)
            #expect(upserted["matchedCount"] == .int(0))
            #expect(upserted["upsertedId"]?["$oid"] != nil)
            let made = try await server.ok("Item", "findOne", #"{"filter": {"k": "new"}}"#, as: user)
            #expect(made["document"]?["v"] == .int(1))

            // Errors: replacement document, unknown operator, wrong operand types, _id changes.
            for (body, code) in [
                (#"{"filter": {"_id": 1}, "update": {"name": "replaced"}}"#, "badRequest"),
                (#"{"filter": {"_id": 1}, "update": {"$rename": {"n": "m"}}}"#, "unknownOperator"),
                (#"{"filter": {"_id": 1}, "update": {"$inc": {"n": "one"}}}"#, "badRequest"),
                (#"{"filter": {"_id": 1}, "update": {"$inc": {"name": 1}}}"#, "badRequest"),
                (#"{"filter": {"_id": 1}, "update": {"$push": {"name": 1}}}"#, "badRequest"),
                (#"{"filter": {"_id": 1}, "update": {"$set": {"_id": 9}}}"#, "badRequest"),
                (#"{"filter": {"_id": 1}, "update": {"$set": {"$bad": 9}}}"#, "invalidFieldName"),
                (#"{"filter": {"_id": 1}, "update": {"$set": 3}}"#, "badRequest"),
                (#"{"filter": {"_id": 1}}"#, "badRequest"),
                (#"{"filter": {"_id": 1}, "update": {"$set": {"a": 1}}, "upsert": "yes"}"#, "badRequest"),
            ] {
                let (status, json) = try await server.data("Item", "updateOne", body, as: user)
                #expect(status == 400, "\(body): \(json.text)")
                #expect(json["code"] == .string(code), "\(body): \(json.text)")
                #expect(json["error"]?.stringValue?.isEmpty == false)
            }
            let after = try await server.storage.document(appId: server.appId, collection: "Item", primaryKey: .int(1))
            #expect(after == stored)
        }
    }

    @Test func aggregate() async throws {
        try await withDataServer { server in
            let user = try await server.newUser()
            try await server.ok("Sale", "insertMany", """
                {"documents": [{"_id": 1, "kind": "a", "amount": 5}, {"_id": 2, "kind": "b", "amount": 7},
                               {"_id": 3, "kind": "a", "amount": 1}, {"_id": 4, "kind": "c", "amount": 2}]}
                """, as: user)
            let grouped = try await server.ok("Sale", "aggregate", """
                {"pipeline": [{"$match": {"amount": {"$gt": 1}}}, {"$group": {"_id": "$kind", "count": {"$sum": 1}, "total": {"$sum": "$amount"}}},
                              {"$sort": {"count": -1}}, {"$limit": 2}]}
                """, as: user)
            let docs = grouped["documents"]?.items ?? []
            #expect(docs.count == 2)
            #expect(docs == [
                .object(["_id": .string("a"), "count": .int(1), "total": .int(5)]),
                .object(["_id": .string("b"), "count": .int(1), "total": .int(7)]),
            ])
            let all = try await server.ok("Sale", "aggregate", """
                {"pipeline": [{"$group": {"_id": "$kind", "count": {"$sum": 1}}}, {"$sort": [{"count": -1}, {"_id": 1}]}]}
                """, as: user)
            #expect(all["documents"] == .array([
                .object(["_id": .string("a"), "count": .int(2)]), .object(["_id": .string("b"), "count": .int(1)]),
                .object(["_id": .string("c"), "count": .int(1)]),
            ]))
            let projected = try await server.ok("Sale", "aggregate", #"{"pipeline": [{"$sort": {"amount": 1}}, {"$project": {"amount": 1, "_id": 0}}]}"#, as: user)
            #expect(projected["documents"] == .array([1, 2, 5, 7].map { .object(["amount": .int($0)]) }))
            let bad = try await server.data("Sale", "aggregate", #"{"pipeline": [{"$lookup": {}}]}"#, as: user)
            #expect(bad.status == 400)
            #expect(bad.json["code"] == .string("unknownOperator"))
            #expect(bad.json["error"]?.stringValue?.contains("$lookup") == true)
        }
    }

    @Test func historyAndSync() async throws {
        try await withDataServer { server in
            let user = try await server.newUser()
            let start = try await server.storage.latestServerVersion(appId: server.appId)
            try await server.ok("Item", "insertMany", #"{"documents": [{"_id": "h1", "v": 1}, {"_id": "h2", "v": 2}]}"#, as: user)
            let afterInsert = try await server.storage.latestServerVersion(appId: server.appId)
            #expect(afterInsert == start + 1)
            try await server.ok("Item", "updateOne", #"{"filter": {"_id": "h1"}, "update": {"$set": {"v": 10}}}"#, as: user)
            try await server.ok("Item", "deleteOne", #"{"filter": {"_id": "h2"}}"#, as: user)
            let end = try await server.storage.latestServerVersion(appId: server.appId)
            #expect(end == start + 3)
            let history = try await server.storage.changesets(appId: server.appId, after: start, upTo: end, limit: 10)
            #expect(history.count == 3)
            #expect(history.allSatisfy { $0.draft.originFileIdent == 0 })
            #expect(history[0].draft.changes.map(\.primaryKey) == [.string("h1"), .string("h2")])
            #expect(history[0].draft.changes[0].before == nil)
            #expect(history[0].draft.changes[0].after == ["_id": .string("h1"), "v": .int(1)])
            let update = try #require(history[1].draft.changes.first)
            #expect(update.before == ["_id": .string("h1"), "v": .int(1)])
            #expect(update.after == ["_id": .string("h1"), "v": .int(10)])
            #expect(update.changedFields == ["v"])
            let delete = try #require(history[2].draft.changes.first)
            #expect(delete.after == nil)
            #expect(delete.before?["v"] == .int(2))

            // Reads and no-op writes append nothing.
            try await server.ok("Item", "find", "{}", as: user)
            try await server.ok("Item", "updateMany", #"{"filter": {"_id": "none"}, "update": {"$set": {"a": 1}}}"#, as: user)
            #expect(try await server.storage.latestServerVersion(appId: server.appId) == end)
        }
    }
}
