import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Which of a client's own changes come back to it in the download that acknowledges them (docs/protocol.md §4):
/// an object it created that did not exist on the server does not, unless another change to the same object is
/// applied underneath it in a download that already acknowledges the upload.
@Suite struct OwnChangeEchoTests {
    static let user = SeedScenarioTests.user

    static func item(_ name: String, complexity: Int64 = 1) -> Document {
        ["ownerId": .string(user.userId), "itemName": .string(name), "complexity": .int(complexity)]
    }

    /// Runs `body` with the seed app's engine on one driver and `clients` bound, subscribed clients of the user.
    static func withSubscribedClients(
        _ driver: Driver, count: Int = 1,
        _ body: @Sendable @escaping (any ServerStorage, [InMemorySyncConnection]) async throws -> Void
    ) async throws {
        try await driver.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                var clients: [InMemorySyncConnection] = []
                for _ in 0..<count {
                    let client = InMemorySyncConnection(handler: engine, user: user)
                    _ = try await client.bindNewFile()
                    _ = try await client.subscribe(version: 1, ["Item": "complexity <= 4"])
                    clients.append(client)
                }
                try await body(storage, clients)
                for client in clients { await client.close() }
            }
        }
    }

    static func download(_ client: InMemorySyncConnection, ack: Int64) async throws -> [DownloadInstruction] {
        let message = try await client.next { if case .download(let d) = $0 { d.uploadAck == ack } else { false } }
        guard case .download(let download) = message else { return [] }
        return download.changesets.flatMap(\.instructions)
    }

    @Test(arguments: Driver.enabled)
    func createdObjectsAreNotSentBackOtherChangesAre(driver: Driver) async throws {
        try await Self.withSubscribedClients(driver) { storage, clients in
            let client = clients[0]
            let pk = Value.objectId(.generate())
            try await client.upload(clientVersion: 1, [.create(className: "Item", primaryKey: pk, fields: Self.item("a"))])
            #expect(try await Self.download(client, ack: 1) == [])
            #expect(try await storage.document(appId: "seed-app", collection: "Item", primaryKey: pk)?["itemName"] == .string("a"))

            try await client.upload(clientVersion: 2, [.set(className: "Item", primaryKey: pk, field: "itemName", value: .string("b"))])
            #expect(try await Self.download(client, ack: 2) == [.upsert(className: "Item", primaryKey: pk, fields: ["itemName": .string("b")])])

            try await client.upload(clientVersion: 3, [.erase(className: "Item", primaryKey: pk)])
            #expect(try await Self.download(client, ack: 3) == [.erase(className: "Item", primaryKey: pk)])
        }
    }

    /// The convergence hazard: the erase comes back in the same download that acknowledges the create, so the
    /// client applies it without protecting its created object — the create must come back after it.
    @Test(arguments: Driver.enabled)
    func aCreateAfterAnEraseOfTheSameObjectInOneUploadComesBack(driver: Driver) async throws {
        try await Self.withSubscribedClients(driver) { storage, clients in
            let client = clients[0]
            let pk = Value.objectId(.generate())
            try await client.upload(clientVersion: 1, [.create(className: "Item", primaryKey: pk, fields: Self.item("first"))])
            #expect(try await Self.download(client, ack: 1) == [])

            let now = Int64(Date().timeIntervalSince1970 * 1000)
            client.send(.upload(session: 1, changesets: [
                UploadChangeset(clientVersion: 2, lastServerVersion: 0, timestamp: now,
                                instructions: [.erase(className: "Item", primaryKey: pk)]),
                UploadChangeset(clientVersion: 3, lastServerVersion: 0, timestamp: now,
                                instructions: [.create(className: "Item", primaryKey: pk, fields: Self.item("second"))]),
            ]))
            let instructions = try await Self.download(client, ack: 3)
            #expect(instructions.count == 2)
            #expect(instructions.first == .erase(className: "Item", primaryKey: pk))
            guard case .upsert(_, let upserted, let fields)? = instructions.last else {
                Issue.record("expected the create to come back, got \(instructions)")
                return
            }
            #expect(upserted == pk && fields["itemName"] == .string("second"))
        }
    }

    /// Uploads sent without waiting are integrated while the previous ones commit (docs/protocol.md §6); a
    /// download acknowledging one of them stops at its changes, so none of the later uploads' creates comes back
    /// either, while another client receives every object.
    @Test(arguments: Driver.enabled)
    func createsUploadedWithoutWaitingDoNotComeBack(driver: Driver) async throws {
        try await Self.withSubscribedClients(driver, count: 2) { storage, clients in
            let (writer, reader) = (clients[0], clients[1])
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            // Uploads of 150 objects: each batch is large enough to commit while the next is integrated.
            let uploads: Int64 = 30
            for version in 1...uploads {
                let creates = (0..<150).map { n in
                    SyncInstruction.create(className: "Item", primaryKey: .objectId(.generate()), fields: Self.item("\(version)-\(n)"))
                }
                writer.send(.upload(session: 1, changesets: [
                    UploadChangeset(clientVersion: version, lastServerVersion: 0, timestamp: now, instructions: creates),
                ]))
            }
            var echoed: [DownloadInstruction] = []
            while true {
                let message = try await writer.next { if case .download = $0 { true } else { false } }
                guard case .download(let download) = message else { continue }
                echoed += download.changesets.flatMap(\.instructions)
                if download.uploadAck == uploads { break }
            }
            #expect(echoed.isEmpty, "\(echoed.count) of the writer's own creates came back")
            var received = Set<Value>()
            while received.count < 4_500 {
                let message = try await reader.next { if case .download = $0 { true } else { false } }
                guard case .download(let download) = message else { continue }
                for case .upsert(_, let pk, _) in download.changesets.flatMap(\.instructions) { received.insert(pk) }
            }
            #expect(received.count == 4_500)
            #expect(try await storage.documents(appId: "seed-app", collection: "Item").count == 4_500)
        }
    }

    /// Another client's creates still reach this one in full.
    @Test(arguments: Driver.enabled)
    func otherClientsReceiveTheCreate(driver: Driver) async throws {
        try await Self.withSubscribedClients(driver, count: 2) { _, clients in
            let (writer, reader) = (clients[0], clients[1])
            let pk = Value.objectId(.generate())
            try await writer.upload(clientVersion: 1, [.create(className: "Item", primaryKey: pk, fields: Self.item("shared"))])
            #expect(try await Self.download(writer, ack: 1) == [])
            let message = try await reader.next { message in
                guard case .download(let download) = message else { return false }
                return !download.changesets.isEmpty
            }
            guard case .download(let download) = message else { return }
            guard case .upsert(_, let received, let fields)? = download.changesets.first?.instructions.first else {
                Issue.record("expected an upsert")
                return
            }
            #expect(received == pk && fields["itemName"] == .string("shared") && fields["ownerId"] == .string(Self.user.userId))
        }
    }

    /// A download may carry a file's own changes before the upload that made them was acknowledged to it: the client
    /// reconnected while its upload waited on the old connection's session, and the new session is woken by that
    /// upload's commit. The download acknowledges what it carries: a compensation's client version (after its 231),
    /// and an own changeset's version less one (a compensation for it may follow in a later message). Before, it
    /// carried the old acknowledgement, so the client kept those writes as pending and left the download's changes
    /// to them underneath, the compensating removal among them (the 300-step convergence hunt's objects the server
    /// lacked).
    @Test(arguments: Driver.enabled)
    func aDownloadAcknowledgesTheOwnChangesItCarries(driver: Driver) async throws {
        try await driver.withStorage { base in
            let storage = HeldCommitStorage(base)
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let query = ["Item": "complexity <= 4"]
                let first = InMemorySyncConnection(handler: engine, user: Self.user)
                let (ident, salt) = try await first.bindNewFile()
                _ = try await first.subscribe(version: 1, query)
                storage.hold()
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                let outside = Value.objectId(.generate())
                first.send(.upload(session: 1, changesets: [
                    UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: now, instructions: [
                        .create(className: "Item", primaryKey: .objectId(.generate()), fields: Self.item("legal"))]),
                    UploadChangeset(clientVersion: 2, lastServerVersion: 0, timestamp: now, instructions: [
                        .create(className: "Item", primaryKey: outside, fields: Self.item("outside", complexity: 9))]),
                    UploadChangeset(clientVersion: 3, lastServerVersion: 0, timestamp: now, instructions: [
                        .create(className: "Item", primaryKey: .objectId(.generate()), fields: Self.item("legal too"))]),
                ]))
                try await eventuallyTrue { storage.isHolding }
                // The connection ends; its session still integrates the upload once the storage lets it.
                let closing = Task { await first.close() }

                let second = InMemorySyncConnection(handler: engine, user: Self.user)
                second.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: ident, salt: salt, cursor: .start,
                                  subscriptions: SubscriptionQuery(version: 1, queries: query)))
                let bound = try await second.next { if case .download = $0 { true } else { false } }
                guard case .download(let boundDownload) = bound else { return }
                #expect(boundDownload.uploadAck == 0)
                storage.release()
                var announced = false
                let carrying = try await second.next {
                    if case .error(let info) = $0, info.rejectedClientVersion == 2 { announced = true }
                    if case .download(let download) = $0 {
                        return download.changesets.contains { $0.originFileIdent == ident }
                    }
                    return false
                }
                guard case .download(let download) = carrying else { return }
                #expect(announced, "the 231 for client version 2 comes before the download that carries its revert")
                #expect(download.changesets.contains { $0.instructions.contains(.erase(className: "Item", primaryKey: outside)) })
                #expect(download.uploadAck == 2, "the download that carries client versions 1 to 3 and the revert of 2 acknowledges 2")
                await second.close()
                await closing.value
            }
        }
    }

    /// No download acknowledges a refused client version before its 231 was sent. Here the refused write's
    /// download spans more than one message (another client's 300 changes come first, 256 changesets a message),
    /// and the compensation is in the second; before, the first already acknowledged the refused version, so a
    /// client answered `verdict(forTransaction:)` with `.accepted`.
    @Test(arguments: Driver.enabled)
    func noAcknowledgementOfARefusedWriteBeforeIts231(driver: Driver) async throws {
        try await driver.withStorage { base in
            let storage = HeldCommitStorage(base)
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let query = ["Item": "complexity <= 4"]
                var clients: [InMemorySyncConnection] = []
                for _ in 0..<2 {
                    let client = InMemorySyncConnection(handler: engine, user: Self.user)
                    _ = try await client.bindNewFile()
                    _ = try await client.subscribe(version: 1, query)
                    clients.append(client)
                }
                let (writer, other) = (clients[0], clients[1])
                storage.hold(once: true)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                // A legal write and one outside the view, integrated together once the storage lets them.
                writer.send(.upload(session: 1, changesets: [
                    UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: now, instructions: [
                        .create(className: "Item", primaryKey: .objectId(.generate()), fields: Self.item("legal"))]),
                    UploadChangeset(clientVersion: 2, lastServerVersion: 0, timestamp: now, instructions: [
                        .create(className: "Item", primaryKey: .objectId(.generate()), fields: Self.item("outside", complexity: 9))]),
                ]))
                try await eventuallyTrue { storage.isHolding }
                // Meanwhile the other client's 300 changes are committed: they come first in the writer's download.
                other.send(.upload(session: 1, changesets: (1...300).map { version in
                    UploadChangeset(clientVersion: Int64(version), lastServerVersion: 0, timestamp: now, instructions: [
                        .create(className: "Item", primaryKey: .objectId(.generate()), fields: Self.item("other \(version)"))])
                }))
                _ = try await other.next { if case .download(let d) = $0 { d.uploadAck == 300 } else { false } }
                storage.release()

                var announced = false
                while true {
                    let message = try await writer.next()
                    if case .error(let info) = message, info.rejectedClientVersion == 2 { announced = true }
                    if case .download(let download) = message, download.uploadAck >= 2 {
                        #expect(announced, "a download acknowledged client version 2 before its 231")
                        break
                    }
                }
                for client in clients { await client.close() }
            }
        }
    }
}
