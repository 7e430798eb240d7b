import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Partition-based sync judges each uploaded instruction against the document as stored: a user bound to their own
/// partition cannot erase, change or take over (by a create of its key) a document of another user's partition, and
/// a guessed key that exists nowhere gets the same answer as a hidden one wherever the protocol allows
/// (docs/protocol.md §7). Real WebSocket connections to an in-process server, on every storage driver.
@Suite struct PartitionIsolationTests {
    static func app() throws -> AppDefinition {
        try AppDefinition(jsonText: """
            { "app_id": "pbs-isolation", "auth": { "anonymous": { "enabled": true } },
              "sync": { "mode": "partition", "development_mode_enabled": true,
                        "partition": { "key": "_partition", "type": "string",
                                       "permissions": { "read": { "%%user.id": "%%partition" },
                                                        "write": { "%%user.id": "%%partition" } } } } }
            """)
    }

    /// A connection bound to one partition, uploading one changeset at a time.
    struct Device {
        let client: SyncTestClient
        var version: Int64 = 0

        static func bound(_ server: TestServer, token: String, partition: String) async throws -> Device {
            let client = try await SyncTestClient.connect(url: server.syncURL(), accessToken: token)
            client.send(.bind(session: 1, mode: .partition, partition: .string(partition), fileIdent: nil, salt: nil,
                              cursor: .start, subscriptions: nil))
            _ = try await client.next { if case .download = $0 { true } else { false } }
            return Device(client: client)
        }

        /// Uploads one changeset and returns what the server sent up to the download that acknowledges it.
        mutating func upload(_ instructions: [SyncInstruction]) async throws -> [ServerMessage] {
            version += 1
            let version = version
            client.send(.upload(session: 1, changesets: [UploadChangeset(
                clientVersion: version, lastServerVersion: 0, timestamp: Int64(Date().timeIntervalSince1970 * 1000),
                instructions: instructions)]))
            var replies: [ServerMessage] = []
            while true {
                let message = try await client.next()
                replies.append(message)
                if case .download(let download) = message, download.uploadAck >= version { return replies }
                if case .error(let info) = message, info.code != .compensatingWrite {
                    throw TestFailure("upload \(version) failed: \(info.code) \(info.message)")
                }
            }
        }
    }

    static func rejections(_ replies: [ServerMessage]) -> [RejectedUpdate] {
        replies.flatMap { message -> [RejectedUpdate] in
            guard case .error(let info) = message else { return [] }
            return info.rejectedUpdates ?? []
        }
    }

    static func instructions(_ replies: [ServerMessage]) -> [DownloadInstruction] {
        replies.flatMap { message -> [DownloadInstruction] in
            guard case .download(let download) = message else { return [] }
            return download.changesets.flatMap(\.instructions)
        }
    }

    @Test(arguments: Driver.enabled)
    func anotherPartitionsDocumentCannotBeErasedChangedOrTaken(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(configuration: try Self.app(), storage: storage) { server in
                let a = try await SyncWebSocketTests.anonymousLogin(server.client, appId: server.appId)
                let b = try await SyncWebSocketTests.anonymousLogin(server.client, appId: server.appId)
                var alice = try await Device.bound(server, token: a.token, partition: a.userId)
                var mallory = try await Device.bound(server, token: b.token, partition: b.userId)
                func stored(_ id: ObjectId) async throws -> Document? {
                    try await storage.document(appId: server.appId, collection: "Note", primaryKey: .objectId(id))
                }

                let secret = ObjectId.generate()
                _ = try await alice.upload([.create(className: "Note", primaryKey: .objectId(secret), fields: [
                    "text": .string("alice's"), "tags": .array([.string("private")])])])
                let original = try #require(try await stored(secret))
                #expect(original["_partition"] == .string(a.userId))

                // Each attack on the hidden document, and the same on a key that exists nowhere.
                let unused = ObjectId.generate()
                for target in [secret, unused] {
                    let attacks: [[SyncInstruction]] = [
                        [.erase(className: "Note", primaryKey: .objectId(target))],
                        [.set(className: "Note", primaryKey: .objectId(target), field: "text", value: .string("mallory's"))],
                        [.set(className: "Note", primaryKey: .objectId(target), field: "_partition", value: .string(b.userId))],
                        [.erase(className: "Note", primaryKey: .objectId(target)),
                         .set(className: "Note", primaryKey: .objectId(target), field: "text", value: .string("x"))],
                    ]
                    for attack in attacks {
                        let replies = try await mallory.upload(attack)
                        #expect(Self.rejections(replies).isEmpty, "\(attack)")
                        #expect(Self.instructions(replies).isEmpty, "\(attack)")
                    }
                }
                #expect(try await stored(secret) == original)
                #expect(try await stored(unused) == nil)

                // A create of the hidden document's key, with the attacker's partition or none: refused with the
                // original's reason and removed from the attacker's file; the document stays as Alice wrote it.
                let reason = "write to \"\(secret.stringValue)\" in table \"Note\" not allowed; object is outside of the current query view"
                for fields: Document in [["_partition": .string(b.userId), "text": .string("taken")], ["text": .string("taken")]] {
                    let replies = try await mallory.upload([.create(className: "Note", primaryKey: .objectId(secret), fields: fields)])
                    #expect(Self.rejections(replies) == [RejectedUpdate(table: "Note", primaryKey: .objectId(secret), reason: reason)])
                    #expect(Self.instructions(replies) == [.erase(className: "Note", primaryKey: .objectId(secret))])
                    #expect(try await stored(secret) == original)
                }
                // The one answer the protocol cannot hide: an unused key is free, and the create takes it.
                let created = try await mallory.upload([.create(className: "Note", primaryKey: .objectId(unused), fields: [
                    "text": .string("mallory's own")])])
                #expect(Self.rejections(created).isEmpty)
                #expect(try await stored(unused)?["_partition"] == .string(b.userId))

                // Alice's file received none of it: her next upload's downloads carry only her own change.
                let own = try await alice.upload([.set(className: "Note", primaryKey: .objectId(secret), field: "text",
                                                      value: .string("alice's, edited"))])
                #expect(Self.rejections(own).isEmpty)
                for instruction in Self.instructions(own) {
                    guard case .upsert(_, .objectId(secret), let fields) = instruction else {
                        Issue.record("Alice received \(instruction)")
                        continue
                    }
                    #expect(fields["text"] == .string("alice's, edited"))
                }
                #expect(try await stored(secret)?["text"] == .string("alice's, edited"))
                #expect(try await stored(secret)?["_partition"] == .string(a.userId))
                await alice.client.close()
                await mallory.client.close()
            }
        }
    }
}
