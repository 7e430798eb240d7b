import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// `context.services.get("mongodb-atlas")` runs through the Data API's engine: with the caller's rules (a second
/// user cannot read, change or delete the first user's documents through a function), without rules for
/// `run_as_system`, and in the server's transactions (writes become history for sync clients).
@Suite struct FunctionServicesTests {
    static let functions = functionEntries([
        ("addItem", """
            exports = async function(name) {
              const items = context.services.get("mongodb-atlas").db("app").collection("Item");
              const { insertedId } = await items.insertOne({ ownerId: context.user.id, name });
              return insertedId;
            };
            """),
        ("readItem", """
            exports = async (id) => context.services.get("mongodb-atlas").db("app").collection("Item").findOne({ _id: id });
            """),
        ("renameItem", """
            exports = async (id, name) => context.services.get("mongodb-atlas").db("app").collection("Item")
              .updateOne({ _id: id }, { $set: { name } });
            """),
        ("deleteItem", """
            exports = async (id) => context.services.get("mongodb-atlas").db("app").collection("Item").deleteOne({ _id: id });
            """),
        ("stealItem", """
            exports = async (id) => context.services.get("mongodb-atlas").db("app").collection("Item")
              .insertOne({ _id: id, ownerId: "someone else", name: "mine now" });
            """),
        ("countAll", """
            exports = async () => context.services.get("mongodb-atlas").db("app").collection("Item").count({});
            """),
        ("listSorted", """
            exports = async () => (await context.services.get("mongodb-atlas").db("app").collection("Item")
              .find({}).sort({ name: 1 }).toArray()).map((item) => item.name);
            """),
        ("otherService", "exports = () => context.services.get('http');"),
    ], extra: ["countAll": #"{"run_as_system": true}"#])

    @Test func aSecondUserCannotReachTheFirstUsersDocuments() async throws {
        try await withFunctionServer(functions: Self.functions, rules: ["Item": ownerReadWriteRole]) { server in
            let alice = try await server.newUser()
            let bob = try await server.newUser()
            let before = try await server.storage.latestServerVersion(appId: server.appId)
            let added = try await server.callFunction("addItem", #"["alice's"]"#, as: alice)
            #expect(added.status == 200, "\(added.json.text)")
            let id = added.json
            #expect(id["$oid"] != nil, "\(id.text)")
            // The write went through a transaction with history, as a Data API write does.
            #expect(try await server.storage.latestServerVersion(appId: server.appId) > before)
            let own = try await server.callFunction("readItem", "[\(id.text)]", as: alice)
            #expect(own.json["name"] == .string("alice's"))
            let read = try await server.callFunction("readItem", "[\(id.text)]", as: bob)
            #expect(read.json == .null, "\(read.json.text)")
            let rename = try await server.callFunction("renameItem", "[\(id.text), \"bob's\"]", as: bob)
            #expect(rename.json["matchedCount"] == JSONValue.parse(#"{"$numberInt": "0"}"#), "\(rename.json.text)")
            let delete = try await server.callFunction("deleteItem", "[\(id.text)]", as: bob)
            #expect(delete.json["deletedCount"] == JSONValue.parse(#"{"$numberInt": "0"}"#), "\(delete.json.text)")
            let steal = try await server.callFunction("stealItem", "[\(id.text)]", as: bob)
            #expect(steal.status == 400, "\(steal.json.text)")
            #expect(steal.json["error"]?.stringValue?.isEmpty == false)
            let stored = try await server.storage.document(appId: server.appId, collection: "Item", primaryKey: try Value(extendedJSON: id))
            #expect(stored?["name"] == .string("alice's"))
            #expect(stored?["ownerId"] == .string(alice.id))
            // A system function sees everyone's documents.
            _ = try await server.callFunction("addItem", #"["bob's"]"#, as: bob)
            let count = try await server.callFunction("countAll", as: bob)
            #expect(count.json == JSONValue.parse(#"{"$numberInt": "2"}"#), "\(count.json.text)")
            let visibleToBob = try await server.callFunction("listSorted", as: bob)
            #expect(visibleToBob.json == .array([.string("bob's")]))
        }
    }

    @Test func onlyTheAppsDataSourceIsThere() async throws {
        try await withFunctionServer(functions: Self.functions) { server in
            let user = try await server.newUser()
            let other = try await server.callFunction("otherService", as: user)
            #expect(other.json["error_code"] == .string("FunctionExecutionError"))
            #expect(other.json["error"]?.stringValue?.contains("mongodb-atlas") == true, "\(other.json.text)")
        }
    }
}

/// `%function` in a Data API rule: the role asks a function about each document.
@Suite struct RuleFunctionDataAPITests {
    static let functions = functionEntries([
        ("isOwner", "exports = (ownerId, userId) => ownerId === userId;"),
    ], extra: ["isOwner": #"{"private": true}"#])

    static let checkedRole: JSONValue = JSONValue.parse("""
        {"name": "checked", "apply_when": {"%%true": {"%function": {"name": "isOwner", "arguments": ["%%root.ownerId", "%%user.id"]}}},
         "document_filters": {"read": true, "write": true}, "read": true, "write": true, "insert": true, "delete": true}
        """)!

    @Test func aRoleDecidedByAFunction() async throws {
        try await withFunctionServer(functions: Self.functions, rules: ["Doc": Self.checkedRole]) { server in
            let alice = try await server.newUser()
            let bob = try await server.newUser()
            try await server.ok("Doc", "insertOne", #"{"document": {"_id": 1, "ownerId": "\#(alice.id)", "text": "a"}}"#, as: alice)
            // Bob may not insert a document the function says is not his.
            let stolen = try await server.data("Doc", "insertOne", #"{"document": {"_id": 2, "ownerId": "\#(alice.id)"}}"#, as: bob)
            #expect(stolen.status == 403, "\(stolen.json.text)")
            try await server.ok("Doc", "insertOne", #"{"document": {"_id": 3, "ownerId": "\#(bob.id)", "text": "b"}}"#, as: bob)
            let alicesView = try await server.ok("Doc", "find", "{}", as: alice)
            #expect(alicesView["documents"]?.items.compactMap { $0["text"]?.stringValue } == ["a"])
            let bobsView = try await server.ok("Doc", "find", "{}", as: bob)
            #expect(bobsView["documents"]?.items.compactMap { $0["text"]?.stringValue } == ["b"])
            let pinned = try await server.ok("Doc", "findOne", #"{"filter": {"_id": 1}}"#, as: bob)
            #expect(pinned["document"] == .null)
            let update = try await server.ok("Doc", "updateOne", #"{"filter": {"_id": 1}, "update": {"$set": {"text": "x"}}}"#, as: bob)
            #expect(update["matchedCount"] == .int(0))
            let delete = try await server.ok("Doc", "deleteOne", #"{"filter": {"_id": 1}}"#, as: bob)
            #expect(delete["deletedCount"] == .int(0))
            let own = try await server.ok("Doc", "updateOne", #"{"filter": {"_id": 1}, "update": {"$set": {"text": "x"}}}"#, as: alice)
            #expect(own["modifiedCount"] == .int(1))
            // A filter cannot call functions (a client could otherwise run private ones).
            let filter = try await server.data("Doc", "find", #"{"filter": {"%%true": {"%function": {"name": "isOwner"}}}}"#, as: bob)
            #expect(filter.status == 400, "\(filter.json.text)")
        }
    }

    @Test func rulesReadTheAppsValues() async throws {
        let role = JSONValue.parse("""
            {"name": "capped", "apply_when": {}, "document_filters": {"read": {"level": {"$lte": "%%values.maxLevel"}},
             "write": {"level": {"$lte": "%%values.maxLevel"}}}, "read": true, "write": true}
            """)!
        try await withFunctionServer(functions: Self.functions, values: #"{"maxLevel": 3}"#, rules: ["Gate": role]) { server in
            let user = try await server.newUser()
            try await server.ok("Gate", "insertOne", #"{"document": {"_id": 1, "level": 2}}"#, as: user)
            let refused = try await server.data("Gate", "insertOne", #"{"document": {"_id": 2, "level": 5}}"#, as: user)
            #expect(refused.status == 403)
            let found = try await server.ok("Gate", "find", "{}", as: user)
            #expect(found["documents"]?.items.compactMap { $0["_id"] } == [.int(1)])
            #expect(try await server.storage.document(appId: server.appId, collection: "Gate", primaryKey: .int(2)) == nil)
        }
    }
}
