import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct DataAPIBadInputTests {
    @Test func authentication() async throws {
        try await withDataServer { server in
            let none = try await server.data("Item", "find", "{}", as: nil)
            #expect(none.status == 401)
            let garbage = try await server.data("Item", "find", "{}", as: DataUser(id: "x", token: "garbage"))
            #expect(garbage.status == 401)
            #expect(garbage.json["error_code"] == .string("InvalidSession"))
            let login = try await server.auth.loginAnonymous()
            let refresh = try await server.data("Item", "find", "{}", as: DataUser(id: login.userId, token: login.refreshToken))
            #expect(refresh.status == 401)
        }
    }

    @Test func disabled() async throws {
        try await withDataServer(dataAPIEnabled: false) { server in
            let user = try await server.newUser()
            let response = try await server.data("Item", "find", "{}", as: user)
            #expect(response.status == 404)
            #expect(response.json["code"] == .string("dataAPIDisabled"))
            #expect(response.json["error"]?.stringValue?.contains("data_api") == true)
        }
    }

    @Test func malformedRequests() async throws {
        try await withDataServer { server in
            let user = try await server.newUser()
            let cases: [(String, String, String, Int, String)] = [
                ("Item", "find", #"{"filter": "#, 400, "badRequest"),
                ("Item", "find", "[1, 2]", 400, "badRequest"),
                ("Item", "find", #"{"filter": 3}"#, 400, "badRequest"),
                ("Item", "find", #"{"filter": {"qty": {"$regex": "a"}}}"#, 400, "unknownOperator"),
                ("Item", "find", #"{"filter": {"$where": "1"}}"#, 400, "unknownOperator"),
                ("Item", "find", #"{"limit": -1}"#, 400, "badRequest"),
                ("Item", "find", #"{"limit": "ten"}"#, 400, "badRequest"),
                ("Item", "find", #"{"sort": {"a": 2}}"#, 400, "badRequest"),
                ("Item", "find", #"{"sort": {"a": 1, "b": 1}}"#, 400, "badRequest"),
                ("Item", "find", #"{"projection": {"a": 1, "b": 0}}"#, 400, "badRequest"),
                ("Item", "find", #"{"fliter": {}}"#, 400, "badRequest"),
                ("Item", "insertOne", #"{}"#, 400, "badRequest"),
                ("Item", "insertOne", #"{"document": [1]}"#, 400, "badRequest"),
                ("Item", "insertOne", #"{"document": {"$set": 1}}"#, 400, "invalidFieldName"),
                ("Item", "insertOne", #"{"document": {"a": {"$bad": 1, "x": 2}}}"#, 400, "badRequest"),
                ("Item", "insertOne", #"{"document": {"a.b": 1}}"#, 400, "invalidFieldName"),
                ("Item", "insertOne", #"{"document": {"": 1}}"#, 400, "invalidFieldName"),
                ("Item", "insertOne", #"{"document": {"nested": {"a\u0000b": 1}}}"#, 400, "invalidFieldName"),
                ("Item", "insertOne", #"{"document": {"_id": {"$oid": "nothex"}}}"#, 400, "badRequest"),
                // A primary key is a scalar (storage looks it up as one): no array, no link, on insert or upsert.
                ("Item", "insertOne", #"{"document": {"_id": [1, 2]}}"#, 400, "badRequest"),
                ("Item", "insertOne", #"{"document": {"_id": {"$ref": "Item", "$id": 1}}}"#, 400, "badRequest"),
                ("Item", "insertMany", #"{"documents": [{"_id": 1}, {"_id": {"$ref": "Item", "$id": 2}}]}"#, 400, "badRequest"),
                ("Item", "updateOne", #"{"filter": {"_id": [1]}, "update": {"$set": {"a": 1}}, "upsert": true}"#, 400, "badRequest"),
                ("Item", "updateOne", #"{"filter": {}, "update": {"$set": {"_id": {"$ref": "Item", "$id": 1}}}, "upsert": true}"#, 400, "badRequest"),
                ("Item", "insertMany", #"{"documents": []}"#, 400, "badRequest"),
                ("Item", "aggregate", #"{"pipeline": {}}"#, 400, "badRequest"),
                ("Item", "frobnicate", "{}", 404, "unknownAction"),
                ("$cmd", "find", "{}", 400, "invalidCollectionName"),
                ("a\u{0}b", "find", "{}", 400, "invalidCollectionName"),
                (String(repeating: "c", count: 256), "find", "{}", 400, "invalidCollectionName"),
            ]
            for (collection, action, body, status, code) in cases {
                let response = try await server.data(collection, action, body, as: user)
                #expect(response.status == status, "\(action) \(body): \(response.json.text)")
                #expect(response.json["code"] == .string(code), "\(action) \(body): \(response.json.text)")
                #expect(response.json["error"]?.stringValue?.isEmpty == false)
            }
            // A name of exactly 255 bytes is fine.
            try await server.ok(String(repeating: "c", count: 255), "find", "{}", as: user)
            #expect(try await server.storage.latestServerVersion(appId: server.appId) == 0)
        }
    }

    @Test func injectionLookingInputIsStoredVerbatim() async throws {
        try await withDataServer { server in
            let user = try await server.newUser()
            let evil = "x'); DROP TABLE users;--"
            let body = JSONValue.object([
                "document": .object(["_id": .string(evil), "name": .string("\"; DELETE FROM documents; --"), evil.replacingOccurrences(of: ".", with: ""): .int(1)])
            ]).text
            try await server.ok(evil, "insertOne", body, as: user)
            let found = try await server.ok(evil, "findOne", JSONValue.object(["filter": .object(["_id": .string(evil)])]).text, as: user)
            #expect(found["document"]?["name"] == .string("\"; DELETE FROM documents; --"))
            #expect(found["document"]?[evil] == .int(1))
            #expect(try await server.storage.collections(appId: server.appId).contains(evil))
            // The users table is intact: the user still authenticates.
            #expect(try await server.storage.user(appId: server.appId, id: user.id) != nil)
            try await server.ok("Item", "find", "{}", as: user)
        }
    }
}
