import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// How one upload's changesets are integrated object by object (`ServerSession.integrate`): each changeset's
/// instructions are grouped per object in the order of each object's first instruction, an object touched by
/// several changesets of the upload carries its state from one to the next, and objects stored before are loaded.
@Suite struct UploadGroupingTests {
    static let user = SeedScenarioTests.user

    static func item(_ name: String, complexity: Int64 = 1) -> Document {
        OwnChangeEchoTests.item(name, complexity: complexity)
    }

    @Test(arguments: Driver.enabled)
    func interleavedInstructionsOfSeveralChangesetsAreGroupedPerObjectInFirstSeenOrder(driver: Driver) async throws {
        try await OwnChangeEchoTests.withSubscribedClients(driver) { storage, clients in
            let client = clients[0]
            let (a, b, c, d) = (Value.objectId(.generate()), Value.objectId(.generate()), Value.objectId(.generate()),
                                Value.objectId(.generate()))
            // d is stored before the upload, so the upload's first change to it loads it.
            try await client.upload(clientVersion: 1, [.create(className: "Item", primaryKey: d, fields: Self.item("d"))])
            _ = try await OwnChangeEchoTests.download(client, ack: 1)
            let before = try await storage.latestServerVersion(appId: "seed-app")

            let now = Int64(Date().timeIntervalSince1970 * 1000)
            client.send(.upload(session: 1, changesets: [
                UploadChangeset(clientVersion: 2, lastServerVersion: 0, timestamp: now, instructions: [
                    .create(className: "Item", primaryKey: a, fields: Self.item("a")),
                    .create(className: "Item", primaryKey: b, fields: Self.item("b")),
                    .set(className: "Item", primaryKey: d, field: "itemName", value: .string("d2")),
                    .set(className: "Item", primaryKey: a, field: "complexity", value: .int(2)),
                    .erase(className: "Item", primaryKey: b),
                    .set(className: "Item", primaryKey: a, field: "itemName", value: .string("a2")),
                ]),
                UploadChangeset(clientVersion: 3, lastServerVersion: 0, timestamp: now, instructions: [
                    .create(className: "Item", primaryKey: c, fields: Self.item("c")),
                    .set(className: "Item", primaryKey: a, field: "complexity", value: .int(3)),
                    .create(className: "Item", primaryKey: b, fields: Self.item("b again")),
                    .set(className: "Item", primaryKey: d, field: "complexity", value: .int(4)),
                ]),
            ]))
            _ = try await OwnChangeEchoTests.download(client, ack: 3)

            // The stored documents are every instruction applied in order.
            func stored(_ pk: Value) async throws -> Document? {
                try await storage.document(appId: "seed-app", collection: "Item", primaryKey: pk)
            }
            #expect(try await stored(a)?["itemName"] == .string("a2"))
            #expect(try await stored(a)?["complexity"] == .int(3))
            #expect(try await stored(b)?["itemName"] == .string("b again"))
            #expect(try await stored(c)?["itemName"] == .string("c"))
            #expect(try await stored(d)?["itemName"] == .string("d2"))
            #expect(try await stored(d)?["complexity"] == .int(4))

            // One changeset per uploaded changeset; in each, one change per object, in first-seen order. b, created
            // and erased in the first, is no change there.
            let history = try await storage.changesets(appId: "seed-app", after: before, upTo: before + 10, limit: 10)
            #expect(history.map(\.draft.originClientVersion) == [2, 3])
            guard history.count == 2 else { return }
            #expect(history[0].draft.changes.map(\.primaryKey) == [a, d])
            #expect(history[1].draft.changes.map(\.primaryKey) == [c, a, b, d])
            // The state carries over between the changesets: a's second change starts from the first one's result.
            #expect(history[1].draft.changes[1].before?["itemName"] == .string("a2"))
            #expect(history[1].draft.changes[1].before?["complexity"] == .int(2))
            #expect(history[1].draft.changes[1].changedFields == ["complexity"])
            // d was loaded from storage: its change has the stored document as before.
            #expect(history[0].draft.changes[1].before?["itemName"] == .string("d"))
            #expect(history[0].draft.changes[1].changedFields == ["itemName"])
            #expect(history[1].draft.changes[2].before == nil)
        }
    }
}
