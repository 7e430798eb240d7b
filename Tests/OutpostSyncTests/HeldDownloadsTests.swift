import Foundation
@testable import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Held downloads (docs/sync-client.md, "Downloads"): while the app has the file open, a bootstrap's batches wait for
/// the last one parsed in memory up to `heldDownloadMemoryLimit` bytes of message text, and in the file beyond it;
/// either way the bootstrap is applied whole, in one transaction, and nothing stays stored. (A first open that
/// downloads before it returns streams its bootstrap instead: `BootstrapStreamTests`.)
@Suite(.timeLimit(.minutes(3))) struct HeldDownloadsTests {
    /// 5,000 objects bootstrap in three messages (2,000 instructions each at most) into an open Realm: all kept in
    /// memory, the last two stored (a limit between one and two messages), or all stored.
    @Test(arguments: [8 << 20, 700_000, 1]) func aBootstrapIsAppliedWholeWhereverItsBatchesWaited(limit: Int) async throws {
        try await withTestServer(configuration: .development(appId: "held-\(limit)")) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                app.syncManager.logLevel = .debug
                let user = try await app.login(credentials: .anonymous)
                let (writer, _) = try await openTwoDevices(user)
                let expected = try await uploadItems(5_000, from: writer)

                let reader = try await Self.openNewDevice(user, writer, "held.realm", limit: limit, subscribeWhenOpen: true)
                let items = reader.objects(ConvergenceItem.self)
                #expect(items.count == expected.count)
                for item in items { #expect(expected[item._id] == item.note) }
                #expect(try reader.instance.connection.scalar("SELECT count(*) FROM __outpost_sync_held") == .integer(0))
                // The bootstrap's apply says how many of its held messages waited in the file.
                let stored = limit == 1 ? 2 : limit == 700_000 ? 1 : 0
                #expect(reports.lines.contains { $0.contains("held instructions (\(stored) messages stored)") },
                        "\(reports.lines.filter { $0.contains("held") })")
            }
        }
    }

    /// Messages stored by a process that died before the last batch came are dropped when the session connects
    /// (the server sends the bootstrap again); they are never applied.
    @Test func heldMessagesOfAnEarlierConnectionAreDropped() async throws {
        try await withTestServer(configuration: .development(appId: "held-stale")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let (writer, _) = try await openTwoDevices(user)
                let item = ConvergenceItem()
                item.note = "on the server"
                try writer.write { writer.add(item) }
                let upload = writer.syncSession!
                try await withDeadline(.seconds(30), "the upload") { try await upload.wait(for: .upload) }

                // A file whose held table holds a message that would create an object the server does not have.
                let reader = try await Self.openNewDevice(user, writer, "stale.realm", limit: 1)
                let session = try #require(reader.syncSession)
                session.suspend()
                try await eventually { session.connectionState == .disconnected }
                let ghost = ObjectId.generate()
                let stale = ServerMessage.download(DownloadMessage(
                    session: 1, cursor: DownloadCursor(serverVersion: 1, clientVersion: 0), latestServerVersion: 1,
                    uploadAck: 0, queryVersion: 1, batch: .moreToCome, changesets: [DownloadChangeset(
                        serverVersion: 1, originFileIdent: 0, originClientVersion: 0, timestamp: 0,
                        instructions: [.upsert(className: "ConvergenceItem", primaryKey: .objectId(ghost),
                                               fields: ["note": .string("ghost")])])])).text
                try reader.write { try reader.instance.syncFile.holdDownload(stale) }
                #expect(try reader.instance.connection.scalar("SELECT count(*) FROM __outpost_sync_held") == .integer(1))

                session.resume()
                try await eventually { session.connectionState == .connected }
                let second = ConvergenceItem()
                try writer.write { writer.add(second) }
                try await withDeadline(.seconds(30), "the upload") { try await upload.wait(for: .upload) }
                try await withDeadline(.seconds(30), "the download") { try await session.wait(for: .download) }
                reader.refresh()
                #expect(reader.object(ofType: ConvergenceItem.self, forPrimaryKey: ghost) == nil)
                #expect(reader.objects(ConvergenceItem.self).count == 2)
                #expect(try reader.instance.connection.scalar("SELECT count(*) FROM __outpost_sync_held") == .integer(0))
            }
        }
    }

    /// A device of `user` with its own file beside `sibling`'s, subscribed to every `ConvergenceItem`, holding at
    /// most `limit` bytes of download messages in memory; downloaded before returning. `subscribeWhenOpen`: the
    /// Realm is opened first and subscribes then (its bootstrap is held); otherwise the subscription is an initial
    /// one and the open downloads first (its bootstrap is streamed).
    static func openNewDevice(_ user: User, _ sibling: Realm, _ file: String, limit: Int,
                              subscribeWhenOpen: Bool = false) async throws -> Realm {
        var config = subscribeWhenOpen ? user.flexibleSyncConfiguration() : user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
            subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all"))
        })
        config.objectTypes = [ConvergenceItem.self]
        config.fileURL = sibling.configuration.fileURL!.deletingLastPathComponent().appendingPathComponent(file)
        config.syncConfiguration?.heldDownloadMemoryLimit = limit
        let opening = config
        // A bootstrap of thousands of objects in small batches, while every other sync test runs: generous.
        return try await withDeadline(.seconds(120), "the first open") {
            guard subscribeWhenOpen else {
                return UncheckedSendable(try await Realm(configuration: opening, downloadBeforeOpen: .always))
            }
            let realm = try await Realm(configuration: opening)
            let subscriptions = realm.subscriptions
            try await subscriptions.update { subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all")) }
            realm.refresh()
            return UncheckedSendable(realm)
        }.value
    }
}
