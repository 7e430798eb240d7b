import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Sync over real WebSockets on 127.0.0.1: the in-process server with the seed page's app, and two
/// `outpost-server` processes sharing one PostgreSQL database.
@Suite struct SyncWebSocketTests {
    static let seedApp = #"""
        {"app_id": "seed-app", "auth": {"anonymous": {"enabled": true}},
         "sync": {"mode": "flexible", "queryable_fields_names": ["complexity", "ownerId"], "development_mode_enabled": true},
         "rules": {"Item": {"roles": [{"name": "owner-read-write", "apply_when": {},
            "document_filters": {"read": {"ownerId": "%%user.id"}, "write": {"ownerId": "%%user.id"}}, "read": true, "write": true}]}}}
        """#

    static func anonymousLogin(_ client: TestHTTPClient, appId: String) async throws -> (token: String, userId: String) {
        let response = try await client.post("/api/client/v2.0/app/\(appId)/auth/providers/anon-user/login")
        guard response.status == 200, let token = response["access_token"], let userId = response["user_id"] else {
            throw TestFailure("login failed: \(response.status) \(response.text)")
        }
        return (token, userId)
    }

    static func bindAndSubscribe(_ client: SyncTestClient, query: [String: String]) async throws {
        client.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
        _ = try await client.next { if case .download = $0 { true } else { false } }
        client.send(.query(session: 1, subscriptions: SubscriptionQuery(version: 1, queries: query)))
        _ = try await client.next { if case .download(let d) = $0 { d.queryVersion == 1 && d.batch == .lastInBatch } else { false } }
    }

    static func item(_ id: ObjectId, owner: String, complexity: Int64) -> SyncInstruction {
        .create(className: "Item", primaryKey: .objectId(id), fields: [
            "ownerId": .string(owner), "itemName": .string("item \(complexity)"), "complexity": .int(complexity)])
    }

    static func upserted(_ message: ServerMessage) -> [Value] {
        guard case .download(let download) = message else { return [] }
        return download.changesets.flatMap(\.instructions).compactMap { if case .upsert(_, let pk, _) = $0 { pk } else { nil } }
    }

    @Test(arguments: Driver.enabled)
    func changesFanOutToTheOwnersDevicesOnly(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(configuration: try AppDefinition(jsonText: Self.seedApp), storage: storage) { server in
                let alice = try await Self.anonymousLogin(server.client, appId: "seed-app")
                let bob = try await Self.anonymousLogin(server.client, appId: "seed-app")
                let phone = try await SyncTestClient.connect(url: server.syncURL(), accessToken: alice.token)
                let laptop = try await SyncTestClient.connect(url: server.syncURL(), accessToken: alice.token)
                let other = try await SyncTestClient.connect(url: server.syncURL(), accessToken: bob.token)
                for client in [phone, laptop, other] {
                    try await Self.bindAndSubscribe(client, query: ["Item": "complexity <= 4"])
                }
                let id = ObjectId.generate()
                phone.send(.upload(session: 1, changesets: [UploadChangeset(
                    clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: [Self.item(id, owner: alice.userId, complexity: 2)])]))
                let received = try await laptop.next { !Self.upserted($0).isEmpty }
                #expect(Self.upserted(received) == [.objectId(id)])
                // Bob's session sees the version go by without the document.
                let bobs = try await other.next { if case .download(let d) = $0 { d.cursor.serverVersion >= 1 } else { false } }
                #expect(Self.upserted(bobs).isEmpty)
                // A bootstrap for Bob with every item still does not show Alice's item (read filter).
                other.send(.query(session: 1, subscriptions: SubscriptionQuery(version: 2, queries: ["Item": "TRUEPREDICATE"])))
                let bootstrap = try await other.next { if case .download(let d) = $0 { d.queryVersion == 2 && d.batch == .lastInBatch } else { false } }
                #expect(Self.upserted(bootstrap).isEmpty)
                for client in [phone, laptop, other] { await client.close() }
            }
        }
    }

    @Test func missingOrForgedTokenIsRefusedBeforeTheUpgrade() async throws {
        try await withTestServer { server in
            await #expect(throws: (any Error).self) {
                let client = try await SyncTestClient.connect(url: server.syncURL(), accessToken: nil)
                _ = try await client.next(timeout: .seconds(2))
            }
            await #expect(throws: (any Error).self) {
                let client = try await SyncTestClient.connect(url: server.syncURL(), accessToken: "eyJhbGciOiJIUzI1NiJ9.e30.forged")
                _ = try await client.next(timeout: .seconds(2))
            }
        }
    }

    /// Two `outpost-server` processes on one PostgreSQL database serve the same app: a change accepted by one
    /// reaches a client connected to the other.
    @Test(.enabled(if: PostgresTestEnvironment.shouldRun, Comment(rawValue: PostgresTestEnvironment.disabledReason)))
    func twoServerProcessesSharePostgres() async throws {
        let environment = try PostgresTestEnvironment.current()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-two-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = environment.url
        let first = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.path, "--database", url])
        let second = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.path, "--database", url])
        do {
            let user = try await Self.anonymousLogin(first.client, appId: "outpost-dev")
            let writer = try await SyncTestClient.connect(
                url: "ws://127.0.0.1:\(first.port)/api/client/v2.0/app/outpost-dev/realm-sync", accessToken: user.token)
            let reader = try await SyncTestClient.connect(
                url: "ws://127.0.0.1:\(second.port)/api/client/v2.0/app/outpost-dev/realm-sync", accessToken: user.token)
            let marker = "two-process-\(UUID().uuidString)"
            for client in [writer, reader] {
                try await Self.bindAndSubscribe(client, query: ["Note": "text == \"\(marker)\""])
            }
            let id = ObjectId.generate()
            writer.send(.upload(session: 1, changesets: [UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: [
                .create(className: "Note", primaryKey: .objectId(id), fields: ["text": .string(marker)])])]))
            let received = try await reader.next(timeout: .seconds(20)) { !Self.upserted($0).isEmpty }
            #expect(Self.upserted(received) == [.objectId(id)])
            await writer.close()
            await reader.close()
        } catch {
            _ = try? await first.terminate()
            _ = try? await second.terminate()
            throw error
        }
        #expect(try await first.terminate() == 0)
        #expect(try await second.terminate() == 0)
    }
}
