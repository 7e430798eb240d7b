import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct DataAPIRolesTests {
    @Test func ownerReadWrite() async throws {
        try await withDataServer(rules: ["Item": ownerReadWriteRole]) { server in
            let alice = try await server.newUser()
            let bob = try await server.newUser()
            try await server.ok("Item", "insertOne", #"{"document": {"_id": "a1", "ownerId": "\#(alice.id)", "name": "A"}}"#, as: alice)
            try await server.ok("Item", "insertOne", #"{"document": {"_id": "b1", "ownerId": "\#(bob.id)", "name": "B"}}"#, as: bob)
            let version = try await server.storage.latestServerVersion(appId: server.appId)

            // Reads: each sees only their own.
            let aliceSees = try await server.ok("Item", "find", "{}", as: alice)
            #expect(aliceSees["documents"]?.items.compactMap { $0["_id"]?.stringValue } == ["a1"])
            #expect(try await server.ok("Item", "findOne", #"{"filter": {"_id": "a1"}}"#, as: bob)["document"] == .null)
            #expect(try await server.ok("Item", "count", "{}", as: bob)["count"] == .int(1))
            let aggregated = try await server.ok("Item", "aggregate", #"{"pipeline": [{"$group": {"_id": null, "n": {"$sum": 1}}}]}"#, as: bob)
            #expect(aggregated["documents"] == .array([.object(["_id": .null, "n": .int(1)])]))

            // Bob cannot update or delete Alice's document: it is invisible to him.
            let update = try await server.ok("Item", "updateOne", #"{"filter": {"_id": "a1"}, "update": {"$set": {"name": "hacked"}}}"#, as: bob)
            #expect(update["matchedCount"] == .int(0))
            let updateAll = try await server.ok("Item", "updateMany", #"{"filter": {}, "update": {"$set": {"name": "hacked"}}}"#, as: bob)
            #expect(updateAll["matchedCount"] == .int(1))
            #expect(try await server.ok("Item", "deleteMany", #"{"filter": {"_id": "a1"}}"#, as: bob)["deletedCount"] == .int(0))
            #expect(try await server.storage.document(appId: server.appId, collection: "Item", primaryKey: .string("a1"))?["name"] == .string("A"))

            // Bob cannot insert a document owned by Alice, nor hand his document to her: 403 naming the document.
            let steal = try await server.data("Item", "insertOne", #"{"document": {"_id": "x1", "ownerId": "\#(alice.id)"}}"#, as: bob)
            #expect(steal.status == 403)
            #expect(steal.json["error"]?.stringValue?.contains("\"x1\"") == true, "\(steal.json.text)")
            #expect(steal.json["error"]?.stringValue?.contains("owner-read-write") == true)
            let mixed = try await server.data("Item", "insertMany", """
                {"documents": [{"_id": "ok", "ownerId": "\(bob.id)"}, {"_id": "bad", "ownerId": "\(alice.id)"}]}
                """, as: bob)
            #expect(mixed.status == 403)
            let give = try await server.data("Item", "updateOne", #"{"filter": {"_id": "b1"}, "update": {"$set": {"ownerId": "\#(alice.id)"}}}"#, as: bob)
            #expect(give.status == 403, "\(give.json.text)")
            #expect(give.json["code"] == .string("writeDenied"))
            let upsert = try await server.data(
                "Item", "updateOne", #"{"filter": {"_id": "u1"}, "update": {"$set": {"ownerId": "\#(alice.id)"}}, "upsert": true}"#, as: bob)
            #expect(upsert.status == 403)

            // The refused writes changed nothing (the successful updateMany above wrote Bob's own document).
            #expect(try await server.storage.latestServerVersion(appId: server.appId) == version + 1)
            let stored = try await server.storage.documents(appId: server.appId, collection: "Item")
            #expect(stored.compactMap { $0["_id"] } == [.string("a1"), .string("b1")])
            #expect(stored.first { $0["_id"] == .string("b1") }?["ownerId"] == .string(bob.id))
        }
    }

    @Test func readableButNotWritable() async throws {
        try await withDataServer(rules: ["Board": readAllWriteOwnRole]) { server in
            let alice = try await server.newUser()
            let bob = try await server.newUser()
            try await server.ok("Board", "insertOne", #"{"document": {"_id": "a", "ownerId": "\#(alice.id)", "title": "t"}}"#, as: alice)
            #expect(try await server.ok("Board", "count", "{}", as: bob)["count"] == .int(1))
            let version = try await server.storage.latestServerVersion(appId: server.appId)
            let update = try await server.data("Board", "updateMany", #"{"filter": {}, "update": {"$set": {"title": "x"}}}"#, as: bob)
            #expect(update.status == 403)
            #expect(update.json["error"]?.stringValue?.contains("\"a\"") == true, "\(update.json.text)")
            let delete = try await server.data("Board", "deleteOne", #"{"filter": {"_id": "a"}}"#, as: bob)
            #expect(delete.status == 403)
            #expect(try await server.storage.latestServerVersion(appId: server.appId) == version)
            #expect(try await server.storage.document(appId: server.appId, collection: "Board", primaryKey: .string("a"))?["title"] == .string("t"))
        }
    }

    @Test func unreadableFieldsAreRemoved() async throws {
        try await withDataServer(rules: ["Note": hiddenFieldRole]) { server in
            let user = try await server.newUser()
            _ = try await server.storage.transaction(appId: server.appId) { transaction in
                try await transaction.putDocument(collection: "Note", ["_id": .int(1), "title": .string("t"), "secret": .string("s")])
            }
            let found = try await server.ok("Note", "find", "{}", as: user)
            #expect(found["documents"] == .array([.object(["_id": .int(1), "title": .string("t")])]))
            // Filters cannot probe the hidden field.
            #expect(try await server.ok("Note", "count", #"{"filter": {"secret": "s"}}"#, as: user)["count"] == .int(0))
            let write = try await server.data("Note", "updateOne", #"{"filter": {"_id": 1}, "update": {"$set": {"secret": "x"}}}"#, as: user)
            #expect(write.status == 403)
            let insert = try await server.data("Note", "insertOne", #"{"document": {"secret": "x"}}"#, as: user)
            #expect(insert.status == 403)
        }
    }
}
