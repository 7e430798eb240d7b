import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing

/// Upload messages that arrive one after another are integrated together (`UploadBatch`), with exactly the result
/// of handling them one by one.
@Suite struct UploadBatchTests {
    static let user = SeedScenarioTests.user

    @Test func consecutiveUploadsJoinOneBatchUntilAnotherMessageOrTheLimits() {
        func changeset(_ version: Int64, instructions: Int = 1) -> UploadChangeset {
            UploadChangeset(clientVersion: version, lastServerVersion: 0, timestamp: 0, instructions: (0..<instructions).map { i in
                .create(className: "Item", primaryKey: .int(version * 1000 + Int64(i)), fields: [:])
            })
        }
        let batch = UploadBatch([changeset(1)], bytes: 100)
        #expect(batch.join([changeset(2), changeset(3)], bytes: 20))
        #expect(!batch.join((4..<Int64(4 + UploadBatch.maxChangesets)).map { changeset($0) }, bytes: 1), "over the changeset limit")
        #expect(!batch.join([changeset(9, instructions: UploadBatch.maxInstructions)], bytes: 1), "over the instruction limit")
        #expect(batch.join([changeset(4)], bytes: 3))
        let (groups, bytes) = batch.take()
        #expect(groups.map { $0.map(\.clientVersion) } == [[1], [2, 3], [4]])
        #expect(bytes == 123, "the joined messages' text, not the refused ones'")
        #expect(!batch.join([changeset(5)]), "taken: later uploads start a batch of their own")
    }

    /// Many uploads sent without waiting: all integrated once, one history changeset per client changeset in order,
    /// the last acknowledgement covering them all.
    @Test(arguments: Driver.enabled)
    func uploadsSentWithoutWaitingAreAllIntegratedInOrder(driver: Driver) async throws {
        try await OwnChangeEchoTests.withSubscribedClients(driver) { storage, clients in
            let client = clients[0]
            let before = try await storage.latestServerVersion(appId: "seed-app")
            let keys = (1...60).map { _ in Value.objectId(.generate()) }
            for (i, pk) in keys.enumerated() {
                try await client.upload(clientVersion: Int64(i + 1), [
                    .create(className: "Item", primaryKey: pk, fields: OwnChangeEchoTests.item("n\(i)")),
                    .set(className: "Item", primaryKey: keys[max(0, i - 1)], field: "complexity", value: .int(Int64(i % 4))),
                ])
            }
            _ = try await OwnChangeEchoTests.download(client, ack: 60)
            let history = try await storage.changesets(appId: "seed-app", after: before, upTo: Int64.max, limit: 1000)
            #expect(history.map(\.draft.originClientVersion) == Array(1...60))
            for (i, pk) in keys.enumerated() {
                let document = try await storage.document(appId: "seed-app", collection: "Item", primaryKey: pk)
                #expect(document?["itemName"] == .string("n\(i)"))
                #expect(document?["complexity"] == .int(i == 59 ? 1 : Int64((i + 1) % 4)))
            }
            // Sent again (a reconnect): nothing is applied twice.
            try await client.upload(clientVersion: 60, [.create(className: "Item", primaryKey: keys[0], fields: OwnChangeEchoTests.item("again"))])
            _ = try await OwnChangeEchoTests.download(client, ack: 60)
            #expect(try await storage.latestServerVersion(appId: "seed-app") == before + 60)
        }
    }

    /// Uploads that overlap (a client sending some transactions again without waiting) apply each client version
    /// once, also when they are integrated together: every version after the first inserts into a list, so a
    /// version applied twice would leave its element twice.
    @Test func overlappingUploadsApplyEachClientVersionOnce() async throws {
        try await OwnChangeEchoTests.withSubscribedClients(.sqlite) { storage, clients in
            let client = clients[0]
            let before = try await storage.latestServerVersion(appId: "seed-app")
            let pk = Value.objectId(.generate())
            func changeset(_ version: Int) -> UploadChangeset {
                let instruction: SyncInstruction = version == 1
                    ? .create(className: "Item", primaryKey: pk, fields: OwnChangeEchoTests.item("list"))
                    : .listInsert(className: "Item", primaryKey: pk, field: "tags", index: 0, value: .int(Int64(version)))
                return UploadChangeset(clientVersion: Int64(version), lastServerVersion: 0, timestamp: 0,
                                       instructions: [instruction])
            }
            client.send(.upload(session: 1, changesets: (1...3).map(changeset)))
            client.send(.upload(session: 1, changesets: (2...5).map(changeset)))
            client.send(.upload(session: 1, changesets: (5...6).map(changeset)))
            _ = try await OwnChangeEchoTests.download(client, ack: 6)
            let history = try await storage.changesets(appId: "seed-app", after: before, upTo: Int64.max, limit: 100)
            #expect(history.map(\.draft.originClientVersion) == [1, 2, 3, 4, 5, 6])
            let tags = try await storage.document(appId: "seed-app", collection: "Item", primaryKey: pk)?["tags"]
            #expect(tags == .array([.int(6), .int(5), .int(4), .int(3), .int(2)]))
        }
    }

    /// A batch holding an upload the partition check refuses: the uploads before it are integrated, the session
    /// fails with 212, and nothing after it is applied — as when each message is handled alone.
    @Test func aRefusedUploadInABatchActsAsItWouldAlone() async throws {
        let settings = try SyncBadInputTests.partitionSettings()
        try await Driver.sqlite.withStorage { storage in
            try await withEngine(storage: storage, settings: [settings]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await client.bindNewFile(mode: .partition, partition: .string(Self.user.userId))
                for version in Int64(1)...6 {
                    let partition = version == 4 ? "elsewhere" : Self.user.userId
                    try await client.upload(clientVersion: version, [
                        .create(className: "Dog", primaryKey: .int(version), fields: ["realm_id": .string(partition)]),
                    ])
                }
                let error = try await SyncBadInputTests.connectionError(client)
                #expect(error.code == .badChangeset)
                for version in Int64(1)...6 {
                    let stored = try await storage.document(appId: "seed-app", collection: "Dog", primaryKey: .int(version))
                    #expect((stored != nil) == (version < 4), "Dog \(version)")
                }
            }
        }
    }
}
