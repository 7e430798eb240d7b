import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Every kind of bad input a client can send gets its specific error; only the offending connection or session
/// is affected, nothing is applied partially, and other sessions carry on.
@Suite struct SyncBadInputTests {
    static let user = AuthenticatedUser(appId: "seed-app", userId: "6413800c6852d9220b2e2bb0")

    static func connectionError(_ client: InMemorySyncConnection) async throws -> SyncErrorInfo {
        let message = try await client.next { if case .error = $0 { true } else { false } }
        guard case .error(let info) = message else { throw TestFailure("expected an error") }
        return info
    }

    @Test(arguments: [
        ("{not json", 103),
        ("{\"type\": \"warp\"}", 102),
        ("{\"type\": \"upload\", \"session\": 1, \"changesets\": 5}", 103),
        ("{\"type\": \"mark\", \"session\": 9, \"requestId\": 1}", 106),
        ("{\"type\": \"bind\", \"session\": 0, \"mode\": \"flexible\"}", 106),
        // Nesting deep enough to exhaust a thread's stack if parsed by recursion: refused as malformed.
        (String(repeating: "[", count: 200_000), 103),
        ("{\"type\": \"upload\", \"session\": 1, \"changesets\": " + String(repeating: "{\"a\":", count: 200_000), 103),
    ])
    func malformedMessagesCloseOnlyTheirConnection(text: String, code: Int) async throws {
        try await Driver.sqlite.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let bystander = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await bystander.bindNewFile()
                let offender = InMemorySyncConnection(handler: engine, user: Self.user)
                offender.sendRaw(text)
                let error = try await Self.connectionError(offender)
                #expect(error.code.rawValue == code)
                #expect(error.session == 0 && !error.tryAgain)
                #expect(try await offender.waitForClose() != nil)
                // The other connection still works.
                bystander.send(.ping(timestamp: 42))
                #expect(try await bystander.next() == .pong(timestamp: 42))
                await bystander.close()
            }
        }
    }

    @Test func reusedSessionNumberClosesTheConnection() async throws {
        try await Driver.sqlite.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await client.bindNewFile()
                client.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
                #expect(try await Self.connectionError(client).code == .reuseOfSessionIdent)
            }
        }
    }

    @Test func badSubscriptionErrorsThatVersionAloneAndTheSessionGoesOn() async throws {
        try await Driver.sqlite.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await client.bindNewFile()
                let cases: [(String, String)] = [
                    ("itemName == \"x\"", "Invalid query: unsupported query for table \"Item\": key \"itemName\" is not a queryable field"),
                    ("complexity <= ", "Invalid query: failed to parse query for table \"Item\": "),
                    ("owner.name == \"x\"", "key paths through links"),
                    ("complexity > 1 SORT(complexity ASC)", "SORT, DISTINCT and LIMIT are not supported"),
                    ("tags.@count > 1", "aggregates such as @count"),
                    ("complexity == $0", "argument $0 is not bound"),
                    ("ownerId == 'x'); DROP TABLE documents;--", "Invalid query: failed to parse query for table \"Item\""),
                    // Under the size limit, over the nesting limit.
                    (String(repeating: "(", count: 50_000) + "complexity == 1" + String(repeating: ")", count: 50_000),
                     "the query nests more than 200 levels deep"),
                    (String(repeating: "NOT ", count: 50_000) + "complexity == 1", "the query nests more than 200 levels deep"),
                ]
                for (i, (query, expected)) in cases.enumerated() {
                    let version = Int64(i + 1)
                    client.send(.query(session: 1, subscriptions: SubscriptionQuery(version: version, queries: ["Item": query])))
                    let reply = try await client.next { if case .queryError = $0 { true } else { false } }
                    guard case .queryError(_, let v, let code, let message) = reply else { return }
                    #expect(v == version && code == .badQuery)
                    #expect(message.contains(expected), "\(message)")
                }
                // A good set afterwards completes normally on the same session.
                #expect(try await client.subscribe(version: 100, ["Item": "complexity <= 4"]).isEmpty)
                let count = try await storage.collections(appId: "seed-app")
                #expect(count.isEmpty)
                await client.close()
            }
        }
    }

    @Test func schemaChangeWithDevelopmentModeOffIsRefusedWith225() async throws {
        try await Driver.sqlite.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings(developmentMode: false)]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await client.bindNewFile()
                _ = try await client.subscribe(version: 1, ["Item": "complexity <= 4"])
                let id = ObjectId.generate()
                try await client.upload(clientVersion: 1, [.create(className: "Item", primaryKey: .objectId(id), fields: [
                    "ownerId": .string(Self.user.userId), "complexity": .int(1), "color": .string("red")])])
                let error = try await Self.connectionError(client)
                #expect(error.code == .invalidSchemaChange && !error.tryAgain)
                #expect(error.message == "Invalid schema change (UPLOAD): non-breaking schema change: adding \"String\" column at field \"color\" in schema \"Item\", schema changes from clients are restricted when developer mode is disabled")
                #expect(try await storage.document(appId: "seed-app", collection: "Item", primaryKey: .objectId(id)) == nil)
                #expect(try await storage.latestServerVersion(appId: "seed-app") == 0)
            }
        }
    }

    /// U+0000 may be in a value, on both drivers (PostgreSQL's `jsonb` refused it, and the upload was retried
    /// for ever with error 201); in a class or field name the upload is refused and nothing is stored.
    @Test(arguments: Driver.enabled)
    func nulIsStoredInValuesAndRefusedInNames(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await client.bindNewFile()
                _ = try await client.subscribe(version: 1, ["Item": "complexity <= 4"])
                let id = ObjectId.generate()
                try await client.upload(clientVersion: 1, [.create(className: "Item", primaryKey: .objectId(id), fields: [
                    "_id": .objectId(id), "ownerId": .string(Self.user.userId), "complexity": .int(1),
                    "itemName": .string("a\u{0}b")])])
                // The download that acknowledges the upload comes after its commit.
                _ = try await client.next { if case .download = $0 { true } else { false } }
                #expect(try await storage.document(appId: "seed-app", collection: "Item", primaryKey: .objectId(id))?["itemName"]
                        == .string("a\u{0}b"))
                for (instruction, code, message) in [
                    (SyncInstruction.create(className: "Item", primaryKey: .int(1), fields: ["_id": .int(1), "item\u{0}Name": .int(1)]),
                     SyncErrorCode.badChangeset,
                     #"failed to validate upload changesets: field name "item\u0000Name" in class "Item" is not a valid name: it must not contain control characters"#),
                    (.create(className: "Item", primaryKey: .int(1), fields: ["_id": .int(1), "": .int(1)]), .badChangeset,
                     #"failed to validate upload changesets: field name "" in class "Item" is not a valid name: it must not be empty"#),
                    // Names in the instruction itself are refused as it is read.
                    (.create(className: "It\u{0}em", primaryKey: .int(1), fields: [:]), .badSyntax,
                     "Bad syntax at message.changesets[0].instructions[0].class: 'It\u{0}em' is not a valid name"),
                    (.set(className: "Item", primaryKey: .objectId(id), field: "item\u{0}Name", value: .int(1)), .badSyntax,
                     "Bad syntax at message.changesets[0].instructions[0].field: 'item\u{0}Name' is not a valid name"),
                ] {
                    let offender = InMemorySyncConnection(handler: engine, user: Self.user)
                    _ = try await offender.bindNewFile()
                    try await offender.upload(clientVersion: 1, [instruction])
                    let error = try await Self.connectionError(offender)
                    #expect(error.code == code && !error.tryAgain)
                    #expect(error.message == message)
                }
                #expect(try await storage.latestServerVersion(appId: "seed-app") == 1)
                #expect(try await storage.collections(appId: "seed-app") == ["Item"])
            }
        }
    }

    @Test func reUploadIsIdempotentAndAResumedSessionContinuesFromItsCursor() async throws {
        try await Driver.sqlite.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let first = InMemorySyncConnection(handler: engine, user: Self.user)
                let (ident, salt) = try await first.bindNewFile()
                _ = try await first.subscribe(version: 1, ["Item": "complexity <= 4"])
                let id = ObjectId.generate()
                let create: [SyncInstruction] = [.create(className: "Item", primaryKey: .objectId(id), fields: [
                    "ownerId": .string(Self.user.userId), "complexity": .int(1)])]
                try await first.upload(clientVersion: 1, create)
                _ = try await first.next { if case .download(let d) = $0 { d.uploadAck == 1 } else { false } }
                await first.close()

                // Reconnect: the same file re-sends version 1 (never acknowledged as far as it knows) and adds 2.
                let second = InMemorySyncConnection(handler: engine, user: Self.user)
                second.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt,
                                  cursor: DownloadCursor(serverVersion: 1, clientVersion: 1),
                                  subscriptions: SubscriptionQuery(version: 1, queries: ["Item": "complexity <= 4"])))
                _ = try await second.next { if case .download = $0 { true } else { false } }
                second.send(.upload(session: 1, changesets: [
                    UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: create),
                    UploadChangeset(clientVersion: 2, lastServerVersion: 1, timestamp: 0, instructions: [
                        .set(className: "Item", primaryKey: .objectId(id), field: "complexity", value: .int(2))]),
                ]))
                let ack = try await second.next { if case .download(let d) = $0 { d.uploadAck == 2 } else { false } }
                guard case .download(let acknowledging) = ack else { return }
                #expect(acknowledging.cursor.serverVersion == 2)
                let cursorSalt = try #require(acknowledging.cursor.salt, "a download's cursor carries its version's salt")
                #expect(try await storage.latestServerVersion(appId: "seed-app") == 2)
                #expect(try await storage.document(appId: "seed-app", collection: "Item", primaryKey: .objectId(id))?["complexity"] == .int(2))

                // A wrong salt or another user's file is refused.
                let thief = InMemorySyncConnection(handler: engine, user: AuthenticatedUser(appId: "seed-app", userId: "someone-else"))
                thief.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt, cursor: .start, subscriptions: nil))
                #expect(try await Self.connectionError(thief).code == .userMismatch)
                let guesser = InMemorySyncConnection(handler: engine, user: Self.user)
                guesser.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt + 1, cursor: .start, subscriptions: nil))
                let unknown = try await Self.connectionError(guesser)
                #expect(unknown.code == .badClientFileIdent)
                #expect(unknown.action == .clientReset && unknown.shouldClientReset && !unknown.tryAgain)

                // A file that downloaded more than the server has, or whose uploads were acknowledged further than
                // the server integrated them (a server restored from an earlier backup), must reset (209, 210).
                let ahead = InMemorySyncConnection(handler: engine, user: Self.user)
                ahead.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt,
                                 cursor: DownloadCursor(serverVersion: 99, clientVersion: 2), subscriptions: nil))
                let aheadError = try await Self.connectionError(ahead)
                #expect(aheadError.code == .badServerVersion)
                #expect(aheadError.message.contains("99"))
                #expect(aheadError.action == .clientReset && aheadError.shouldClientReset)
                // A cursor at a version the server has, with another history's salt (209); the right salt, or none
                // (a cursor from before salts), binds, and the first download gives the server's salt.
                let otherHistory = InMemorySyncConnection(handler: engine, user: Self.user)
                otherHistory.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt,
                                        cursor: DownloadCursor(serverVersion: 2, clientVersion: 2, salt: cursorSalt ^ 1), subscriptions: nil))
                let saltError = try await Self.connectionError(otherHistory)
                #expect(saltError.code == .badServerVersion)
                #expect(saltError.message.contains("is not the server's"))
                #expect(saltError.action == .clientReset && saltError.shouldClientReset)
                for known in [cursorSalt, nil] {
                    let rebound = InMemorySyncConnection(handler: engine, user: Self.user)
                    rebound.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt,
                                       cursor: DownloadCursor(serverVersion: 2, clientVersion: 2, salt: known), subscriptions: nil))
                    let first = try await rebound.next { if case .download = $0 { true } else if case .error = $0 { true } else { false } }
                    guard case .download(let reboundDownload) = first else {
                        Issue.record("salt \(known.map(String.init) ?? "none"): \(first)")
                        continue
                    }
                    #expect(reboundDownload.cursor.salt == cursorSalt)
                    await rebound.close()
                }
                let acknowledgedFurther = InMemorySyncConnection(handler: engine, user: Self.user)
                acknowledgedFurther.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt,
                                               cursor: DownloadCursor(serverVersion: 2, clientVersion: 5), subscriptions: nil))
                let versionError = try await Self.connectionError(acknowledgedFurther)
                #expect(versionError.code == .badClientVersion)
                #expect(versionError.message == "Bad client version: the file's uploads were acknowledged up to client version 5 "
                    + "but the server has integrated them up to 2")
                #expect(versionError.action == .clientReset && versionError.shouldClientReset)
                #expect(try await storage.latestServerVersion(appId: "seed-app") == 2)
                await second.close()
            }
        }
    }

    @Test func editingAnObjectOutOfViewRemovesItAndDeletesWin() async throws {
        try await Driver.sqlite.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await client.bindNewFile()
                _ = try await client.subscribe(version: 1, ["Item": "complexity <= 4"])
                let id = ObjectId.generate()
                try await client.upload(clientVersion: 1, [.create(className: "Item", primaryKey: .objectId(id), fields: [
                    "ownerId": .string(Self.user.userId), "complexity": .int(1)])])
                _ = try await client.next { if case .download(let d) = $0 { d.uploadAck == 1 } else { false } }
                // Moving it out of view is allowed (no 231); the download tells the client to remove it.
                try await client.upload(clientVersion: 2, [.set(className: "Item", primaryKey: .objectId(id), field: "complexity", value: .int(9))])
                let moved = try await client.next { if case .download(let d) = $0 { d.uploadAck == 2 } else { false } }
                guard case .download(let download) = moved else { return }
                #expect(download.changesets.flatMap(\.instructions) == [.erase(className: "Item", primaryKey: .objectId(id))])
                #expect(try await storage.document(appId: "seed-app", collection: "Item", primaryKey: .objectId(id))?["complexity"] == .int(9))
            }
        }
    }

    /// A partition-mode app keyed by `realm_id` (a string), each user reading the partition of their own id.
    static func partitionSettings() throws -> SyncAppSettings {
        SyncAppSettings(
            appId: "seed-app", mode: .partition,
            partition: PartitionSettings(key: "realm_id", type: .string, required: true,
                                         readPermission: try RuleExpression.parse(jsonText: #"{"%%partition": "%%user.id"}"#)),
            rules: RuleSet())
    }

    @Test func partitionSyncChecksTypeAndPartitionValue() async throws {
        let settings = try Self.partitionSettings()
        try await Driver.sqlite.withStorage { storage in
            try await withEngine(storage: storage, settings: [settings]) { engine in
                // A partition of the wrong type: 204.
                let wrongType = InMemorySyncConnection(handler: engine, user: Self.user)
                wrongType.send(.bind(session: 1, mode: .partition, partition: .int(5), fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
                let e204 = try await Self.connectionError(wrongType)
                #expect(e204.code == .illegalRealmPath && e204.message == "Illegal Realm path (BIND): serialized partition '5' is invalid")
                // Another user's partition: 206.
                let other = InMemorySyncConnection(handler: engine, user: Self.user)
                other.send(.bind(session: 1, mode: .partition, partition: .string("not-me"), fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
                #expect(try await Self.connectionError(other).code == .permissionDenied)
                // A flexible client on a partition app: 114-style wrong sync type.
                let flexible = InMemorySyncConnection(handler: engine, user: Self.user)
                flexible.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
                #expect(try await Self.connectionError(flexible).code == .switchToPartitionSync)
                // The user's own partition works; the partition key is filled in; a wrong value gets 212.
                let own = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await own.bindNewFile(mode: .partition, partition: .string(Self.user.userId))
                try await own.upload(clientVersion: 1, [.create(className: "Dog", primaryKey: .int(1), fields: ["name": .string("Rex")])])
                _ = try await own.next { if case .download(let d) = $0 { d.uploadAck == 1 } else { false } }
                #expect(try await storage.document(appId: "seed-app", collection: "Dog", primaryKey: .int(1))?["realm_id"] == .string(Self.user.userId))
                try await own.upload(clientVersion: 2, [.create(className: "Dog", primaryKey: .int(2), fields: ["realm_id": .string("elsewhere")])])
                let e212 = try await Self.connectionError(own)
                #expect(e212.code == .badChangeset)
                #expect(e212.message == "failed to validate upload changesets: SET instruction had incorrect partition value for key \"realm_id\" { expectedPartition: \(Self.user.userId), foundPartition: elsewhere }")
                #expect(try await storage.document(appId: "seed-app", collection: "Dog", primaryKey: .int(2)) == nil)
            }
        }
    }
}
