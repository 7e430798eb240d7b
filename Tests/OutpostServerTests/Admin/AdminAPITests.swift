import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct AdminAPITests {
    func admin(_ server: TestServer, _ method: String, _ path: String, key: String?) async throws
        -> (status: Int, json: JSONValue)
    {
        let response = try await server.client.send(
            method, "/api/admin/v1/" + path, headers: key.map { ["X-Admin-Key": $0] } ?? [:])
        return (response.status, JSONValue.parse(response.text) ?? .null)
    }

    @Test func requiresTheKey() async throws {
        try await withDataServer { server in
            let key = try server.adminKey
            for path in ["users", "collections", "collections/Item/documents", "sessions", "logs"] {
                #expect(try await admin(server, "GET", path, key: nil).status == 403)
                #expect(try await admin(server, "GET", path, key: key + "x").status == 403)
                #expect(try await admin(server, "GET", path, key: String(key.dropLast())).status == 403)
                #expect(try await admin(server, "GET", path, key: key).status == 200, "\(path)")
            }
            #expect(try await admin(server, "DELETE", "users/abc", key: nil).status == 403)
            // A user token is not the admin key.
            let user = try await server.newUser()
            let response = try await server.client.send("GET", "/api/admin/v1/users", bearer: user.token)
            #expect(response.status == 403)
        }
    }

    @Test func endpoints() async throws {
        try await withDataServer { server in
            let key = try server.adminKey
            let alice = try await server.newUser()
            let bob = try await server.newUser()
            try await server.ok("Item", "insertMany", #"{"documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]}"#, as: alice)

            let users = try await admin(server, "GET", "users", key: key)
            #expect(Set(users.json["users"]?.items.compactMap { $0["id"]?.stringValue } ?? []) == [alice.id, bob.id])
            #expect(users.json.text.contains("password") == false)

            let collections = try await admin(server, "GET", "collections", key: key)
            #expect(collections.json["collections"] == .array([.object(["name": .string("Item"), "count": .int(3)])]))
            let documents = try await admin(server, "GET", "collections/Item/documents?limit=2", key: key)
            #expect(documents.json["documents"] == .array([.object(["_id": .int(1)]), .object(["_id": .int(2)])]))
            #expect(documents.json["total"] == .int(3))
            #expect(try await admin(server, "GET", "collections/Item/documents?limit=zero", key: key).status == 400)

            let sessions = try await admin(server, "GET", "sessions", key: key)
            #expect(sessions.json["activeConnections"] == .int(0))
            #expect(sessions.json["syncEngine"] == .bool(true))

            let now = Date()
            try await server.storage.appendLog(LogRecord(
                appId: server.appId, time: now.addingTimeInterval(-3600), kind: "compensating_write", level: "warning", message: "old"))
            try await server.storage.appendLog(LogRecord(
                appId: server.appId, time: now, kind: "compensating_write", level: "warning", message: "new",
                details: .document(["table": .string("Item")])))
            try await server.storage.appendLog(LogRecord(appId: server.appId, time: now, kind: "auth", level: "info", message: "other"))
            let all = try await admin(server, "GET", "logs?kind=compensating_write", key: key)
            #expect(all.json["logs"]?.items.compactMap { $0["message"]?.stringValue } == ["old", "new"])
            #expect(all.json["logs"]?.items.last?["details"]?["table"] == .string("Item"))
            let since = ISO8601DateFormatter().string(from: now.addingTimeInterval(-60))
            let recent = try await admin(server, "GET", "logs?kind=compensating_write&since=\(since)", key: key)
            #expect(recent.json["logs"]?.items.compactMap { $0["message"]?.stringValue } == ["new"])
            let until = ISO8601DateFormatter().string(from: now.addingTimeInterval(-60))
            let old = try await admin(server, "GET", "logs?until=\(until)", key: key)
            #expect(old.json["logs"]?.items.compactMap { $0["message"]?.stringValue } == ["old"])
            let limited = try await admin(server, "GET", "logs?limit=1", key: key)
            #expect(limited.json["logs"]?.items.count == 1)
            #expect(try await admin(server, "GET", "logs?since=yesterday", key: key).status == 400)

            #expect(try await admin(server, "DELETE", "users/\(bob.id)", key: key).status == 204)
            #expect(try await admin(server, "DELETE", "users/\(bob.id)", key: key).status == 404)
            let remaining = try await admin(server, "GET", "users", key: key)
            #expect(remaining.json["users"]?.items.compactMap { $0["id"]?.stringValue } == [alice.id])
            // The deleted user's token stops working.
            #expect(try await server.data("Item", "find", "{}", as: bob).status == 401)
        }
    }

    @Test func disablingAUserStopsTheirTokensAndClosesTheirSyncConnections() async throws {
        try await withDataServer { server in
            let key = try server.adminKey
            let user = try await server.newUser()
            let other = try await server.newUser()
            let url = "ws://127.0.0.1:\(server.port)/api/client/v2.0/app/\(server.appId)/realm-sync"
            let connection = try await SyncTestClient.connect(url: url, accessToken: user.token)
            let bystander = try await SyncTestClient.connect(url: url, accessToken: other.token)
            #expect(try await server.data("Item", "find", "{}", as: user).status == 200)
            let connected = try await admin(server, "GET", "sessions", key: key).json["users"]?.items
            #expect(Set(connected?.compactMap { $0["user_id"]?.stringValue } ?? []) == [user.id, other.id])
            #expect(connected?.allSatisfy { $0["connections"] == .int(1) } == true)

            #expect(try await admin(server, "PUT", "users/\(user.id)/disable", key: key).status == 204)
            let reason = try await connection.waitForClose(timeout: .seconds(10))
            #expect(reason?.contains("the user was disabled") == true, "\(reason ?? "nil")")
            #expect(try await server.data("Item", "find", "{}", as: user).status == 401, "the access token stops working")
            let refused = try await server.client.send("GET", "/api/client/v2.0/app/\(server.appId)/realm-sync", bearer: user.token)
            #expect(refused.status == 401, "a new sync connection is refused")
            #expect(try await admin(server, "GET", "users", key: key).json["users"]?.items
                .first { $0["id"]?.stringValue == user.id }?["disabled"] == .bool(true))
            // The closed connection leaves the list once its loop has ended.
            var remaining: [String] = []
            for _ in 0..<200 {
                remaining = try await admin(server, "GET", "sessions", key: key).json["users"]?.items
                    .compactMap { $0["user_id"]?.stringValue } ?? []
                if remaining == [other.id] { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(remaining == [other.id])
            // Another user's connection stays open.
            #expect(try await server.data("Item", "find", "{}", as: other).status == 200)
            bystander.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
            _ = try await bystander.next(timeout: .seconds(10))

            #expect(try await admin(server, "PUT", "users/\(user.id)/enable", key: key).status == 204)
            #expect(try await server.data("Item", "find", "{}", as: user).status == 200, "enabled again")
            let messages = try await admin(server, "GET", "logs?kind=admin", key: key).json["logs"]?.items.compactMap { $0["message"]?.stringValue }
            #expect(messages == ["disabled user \(user.id)", "enabled user \(user.id)"])

            #expect(try await admin(server, "PUT", "users/nobody/disable", key: key).status == 404)
            #expect(try await admin(server, "PUT", "users/\(user.id)/disable", key: nil).status == 403)
            #expect(try await admin(server, "PUT", "users/\(user.id)/enable", key: key + "x").status == 403)
            await bystander.close()
        }
    }
}
