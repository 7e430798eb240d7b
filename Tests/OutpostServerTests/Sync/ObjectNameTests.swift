import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Class and field names follow one rule everywhere (``ObjectNames``): an upload that names a class `$foo` is refused
/// with 212 and records nothing, so other users' uploads keep working in development mode; a recorded schema that an
/// earlier version left unreadable is reported once, naming the bad entry, and replaced instead of failing every
/// upload for ever. Real WebSocket connections to an in-process server on every storage driver.
@Suite struct ObjectNameTests {
    struct Connection {
        let client: SyncTestClient
        var version: Int64 = 0

        static func flexible(_ server: TestServer) async throws -> Connection {
            let login = try await SyncWebSocketTests.anonymousLogin(server.client, appId: server.appId)
            let client = try await SyncTestClient.connect(url: server.syncURL(), accessToken: login.token)
            try await SyncWebSocketTests.bindAndSubscribe(client, query: ["Item": "TRUEPREDICATE", "Dog": "TRUEPREDICATE"])
            return Connection(client: client)
        }

        /// Uploads one changeset; returns the error the server answered with, or nil once it is acknowledged.
        mutating func upload(_ instructions: [SyncInstruction]) async throws -> SyncErrorInfo? {
            version += 1
            let version = version
            client.send(.upload(session: 1, changesets: [UploadChangeset(
                clientVersion: version, lastServerVersion: 0, timestamp: Int64(Date().timeIntervalSince1970 * 1000),
                instructions: instructions)]))
            while true {
                switch try await client.next() {
                case .download(let download) where download.uploadAck >= version: return nil
                case .error(let info): return info
                default: continue
                }
            }
        }
    }

    static func recordedSchema(_ server: TestServer) async throws -> [String: Set<String>] {
        guard case .document(let classes)? = try await server.storage.setting(appId: server.appId, key: "schema") else { return [:] }
        return classes.fields.mapValues { fields in
            if case .document(let f) = fields { Set(f.fields.keys) } else { [] }
        }
    }

    @Test(arguments: Driver.enabled)
    func invalidNamesAreRefusedAndPoisonNobody(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                let prefix = "failed to validate upload changesets: "
                let id = Value.objectId(.generate())
                let cases: [(SyncInstruction, SyncErrorCode, String)] = [
                    (.create(className: "$foo", primaryKey: id, fields: ["n": .int(1)]), .badChangeset,
                     prefix + #"class name "$foo" is not a valid name: it must not start with '$'"#),
                    (.set(className: "Item", primaryKey: id, field: "$bar", value: .int(1)), .badChangeset,
                     prefix + #"field name "$bar" in class "Item" is not a valid name: it must not start with '$'"#),
                    (.create(className: "Item", primaryKey: id, fields: ["a.b": .int(1)]), .badChangeset,
                     prefix + #"field name "a.b" in class "Item" is not a valid name: it must not contain '.'"#),
                    (.create(className: String(repeating: "c", count: 256), primaryKey: id, fields: [:]), .badChangeset,
                     prefix + "class name \"\(String(repeating: "c", count: 256))\" is not a valid name: it must be at most 255 bytes long (it has 256)"),
                    // A create's fields come as a document, where `$` starts an Extended JSON value: refused as read.
                    (.create(className: "Item", primaryKey: id, fields: ["$bar": .int(1)]), .badSyntax,
                     "Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].fields: expected a document, found an Extended JSON value"),
                ]
                for (instruction, code, message) in cases {
                    var offender = try await Connection.flexible(server)
                    let error = try #require(try await offender.upload([instruction]), "\(instruction)")
                    #expect(error.code == code && !error.tryAgain)
                    #expect(error.message == message)
                    await offender.client.close()
                }
                #expect(try await server.storage.latestServerVersion(appId: server.appId) == 0)
                // Another user's upload that adds a class and a field is recorded as usual.
                var user = try await Connection.flexible(server)
                #expect(try await user.upload([.create(className: "Item", primaryKey: id, fields: ["name": .string("ok")])]) == nil)
                #expect(try await user.upload([.create(className: "Dog", primaryKey: .int(1), fields: ["name": .string("Rex")])]) == nil)
                let schema = try await Self.recordedSchema(server)
                #expect(Set(schema.keys) == ["Item", "Dog"])
                #expect(schema["Item"]?.contains("name") == true)
                await user.client.close()
            }
        }
    }

    /// A subscription naming an invalid class is refused with 226 alone (PostgreSQL answered a class name holding
    /// U+0000 with 201, an internal error); the session goes on.
    @Test(arguments: Driver.enabled)
    func subscriptionsToInvalidClassNamesAreRefused(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                var user = try await Connection.flexible(server)
                for (version, name, problem) in [(Int64(2), "It\u{0}em", "must not contain control characters"),
                                                 (3, "$foo", "must not start with '$'")] {
                    user.client.send(.query(session: 1, subscriptions: SubscriptionQuery(version: version, queries: [name: "TRUEPREDICATE"])))
                    let refusal = try await user.client.next { if case .queryError = $0 { true } else { false } }
                    guard case .queryError(_, let refused, let code, let message) = refusal else { continue }
                    #expect(refused == version && code == .badQuery)
                    #expect(message == "Invalid query: class name \(Value.string(name).extendedJSONText) is not a valid name: it \(problem)")
                }
                #expect(try await user.upload([.create(className: "Item", primaryKey: .int(1), fields: ["name": .string("ok")])]) == nil)
                await user.client.close()
            }
        }
    }

    @Test(arguments: Driver.enabled)
    func anUnreadableRecordedSchemaIsReportedAndReplaced(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                // What an earlier version recorded after an upload of class `$foo`.
                try await storage.setSetting(appId: server.appId, key: "schema", value: .document([
                    "$foo": .document(["_id": .string("Int")]), "Item": .document(["_id": .string("ObjectId")])]))
                await #expect(throws: StorageError.self) { try await storage.setting(appId: server.appId, key: "schema") }
                var user = try await Connection.flexible(server)
                #expect(try await user.upload([.create(className: "Dog", primaryKey: .int(1), fields: ["name": .string("Rex")])]) == nil)
                #expect(try await user.upload([.create(className: "Item", primaryKey: .objectId(.generate()),
                                                       fields: ["name": .string("a")])]) == nil)
                let schema = try await Self.recordedSchema(server)
                #expect(Set(schema.keys) == ["Item", "Dog"])
                #expect(schema["Item"] == ["_id", "name"])
                let reports = try await storage.logs(appId: server.appId, kind: "schema", since: nil, until: nil, limit: 10)
                #expect(reports.count == 1)
                #expect(reports.first?.level == "error")
                #expect(reports.first?.message.contains("$foo") == true, "\(reports.first?.message ?? "")")
                await user.client.close()
            }
        }
    }
}
