import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// The seed page's story at the protocol level: role `owner-read-write`, subscription `complexity <= 4`; a legal
/// write syncs, a write with complexity 7 and one with another owner are reverted with error 231 and the
/// documented reasons and log lines.
@Suite struct SeedScenarioTests {
    static let user = AuthenticatedUser(appId: "seed-app", userId: "6413800c6852d9220b2e2bb0")

    @Test(arguments: Driver.enabled)
    func legalWriteSyncsIllegalWritesAreCompensated(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                let (ident, _) = try await client.bindNewFile()
                #expect(try await client.subscribe(version: 1, ["Item": "complexity <= 4"]).isEmpty)

                // A legal write: in view and owned by the user. It is acknowledged; the created object does not
                // come back (the client holds it as stored), its later change does.
                let learn = ObjectId.generate()
                try await client.upload(clientVersion: 1, [.create(className: "Item", primaryKey: .objectId(learn), fields: [
                    "ownerId": .string(Self.user.userId), "itemName": .string("Learn Realm CRUD stuff"), "complexity": .int(2)])])
                let ack = try await client.next { if case .download(let d) = $0 { d.uploadAck == 1 } else { false } }
                guard case .download(let download) = ack else { return }
                #expect(download.changesets.isEmpty)
                try await client.upload(clientVersion: 2, [.set(className: "Item", primaryKey: .objectId(learn), field: "complexity", value: .int(3))])
                let ack2 = try await client.next { if case .download(let d) = $0 { d.uploadAck == 2 } else { false } }
                guard case .download(let download2) = ack2 else { return }
                #expect(download2.changesets.first?.originFileIdent == ident)
                #expect(download2.changesets.first?.instructions == [.upsert(className: "Item", primaryKey: .objectId(learn), fields: ["complexity": .int(3)])])
                #expect(try await storage.document(appId: "seed-app", collection: "Item", primaryKey: .objectId(learn))?["complexity"] == .int(3))

                // Out of view: complexity 7.
                let fix = ObjectId.generate()
                try await client.upload(clientVersion: 3, [.create(className: "Item", primaryKey: .objectId(fix), fields: [
                    "ownerId": .string(Self.user.userId), "itemName": .string("Fix the bug with the failing method"),
                    "complexity": .int(7)])])
                let outOfView = try await Self.compensation(client)
                #expect(outOfView.code == .compensatingWrite)
                #expect(outOfView.message == "Client attempted a write that is outside of permissions or query filters; it has been reverted")
                #expect(outOfView.tryAgain && outOfView.action == .warning)
                #expect(outOfView.rejectedClientVersion == 3)
                #expect(outOfView.rejectedUpdates == [RejectedUpdate(table: "Item", primaryKey: .objectId(fix),
                    reason: "write to \"\(fix.stringValue)\" in table \"Item\" not allowed; object is outside of the current query view")])
                // The revert follows: the object is erased for this client.
                let revert = try await client.next { if case .download = $0 { true } else { false } }
                guard case .download(let revertDownload) = revert else { return }
                #expect(revertDownload.cursor.serverVersion == outOfView.compensatingWriteServerVersion)
                #expect(revertDownload.changesets.flatMap(\.instructions) == [.erase(className: "Item", primaryKey: .objectId(fix))])
                #expect(try await storage.document(appId: "seed-app", collection: "Item", primaryKey: .objectId(fix)) == nil)

                // Another owner: denied by the write filter (the permission reason).
                let wrong = ObjectId.generate()
                try await client.upload(clientVersion: 4, [.create(className: "Item", primaryKey: .objectId(wrong), fields: [
                    "ownerId": .string("This string does not match the user.id"),
                    "itemName": .string("Write code that generates a permission error"), "complexity": .int(1)])])
                let denied = try await Self.compensation(client)
                #expect(denied.rejectedUpdates?.first?.reason
                    == "write to \"\(wrong.stringValue)\" in table \"Item\" was denied by write filter in role \"owner-read-write\"")

                // The server log has the App Services lines.
                let lines = try await storage.logs(appId: "seed-app", kind: "compensating_write", since: nil, until: nil, limit: 10)
                    .map(\.message)
                #expect(lines == [
                    "\"Item\": { \"\(fix.stringValue)\": \"write to \\\"\(fix.stringValue)\\\" in table \\\"Item\\\" not allowed; object is outside of the current query view\" }",
                    "\"Item\": { \"\(wrong.stringValue)\": \"write to \\\"\(wrong.stringValue)\\\" in table \\\"Item\\\" was denied by write filter in role \\\"owner-read-write\\\"\" }",
                ])
                await client.close()
            }
        }
    }

    static func compensation(_ client: InMemorySyncConnection) async throws -> SyncErrorInfo {
        let message = try await client.next { if case .error = $0 { true } else { false } }
        guard case .error(let info) = message else { throw TestFailure("expected an error") }
        return info
    }
}
