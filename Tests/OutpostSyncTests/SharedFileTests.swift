import Foundation
@testable import Outpost
import OutpostServerTesting
import Testing

/// The probe's object (Sources/outpost-sync-probe), so that this process opens the probe's file with its schema.
final class ProbeItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var number: Int
    @Persisted var payload: String
}

/// A synced file used by two processes at once (issue 4, 7c): one syncs, the other waits and takes over.
@Suite(.timeLimit(.minutes(3))) struct SharedFileTests {
    /// The waiting process's subscription update completes when the syncing process completes it. Before, the
    /// waiting process's `update` and `state` stayed pending (only its own session's messages moved them), and
    /// after it took over they stayed pending for ever: the server does not bootstrap a completed set again.
    @Test func aSubscriptionUpdateInTheWaitingProcessCompletesAndItTakesOver() async throws {
        try await withTestServer(configuration: .development(appId: "shared-file")) { server in
            let root = try KillTests.temporaryDirectory("shared")
            defer { try? FileManager.default.removeItem(at: root) }
            let probe = try SyncProbeProcess.launch(arguments: [
                "--server", server.baseURL, "--app", server.appId, "--root", root.path, "--count", "10", "--linger", "90",
            ])
            do {
                try await probe.waitUntil("the probe syncs its file") { $0.contains("lingering") }

                let app = App(id: server.appId, configuration: AppConfiguration(baseURL: server.baseURL, rootDirectory: root))
                let user = try #require(app.currentUser, "the probe's user, kept in the shared root")
                var config = user.flexibleSyncConfiguration()
                config.objectTypes = [ProbeItem.self]
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .never)
                #expect(realm.objects(ProbeItem.self).count == 10, "the probe's objects, in the shared file")
                // The probe's initial set completes in its session (it may still be on its way here).
                let before = realm.subscriptions
                try await eventually("the probe's initial set completes") { before.state == .complete }

                let subscriptions = realm.subscriptions
                // The completion's error (nil for success), once called.
                let completed = KillTests.LockedValue<(any Error)??>(nil)
                subscriptions.update({
                    subscriptions.append(QuerySubscription<ProbeItem>(name: "high") { $0.number >= 5 })
                }, onComplete: { error in completed.withLock { $0 = .some(error) } })
                try await eventually("the update completes through the probe's session") {
                    completed.withLock { $0 != nil }
                }
                #expect(completed.withLock { $0! } == nil)
                #expect(subscriptions.state == .complete)
                #expect(before.state == .superseded)
                // The superseded set is deleted from the file; only the complete one is left.
                realm.refresh()
                let stored = try realm.instance.connection.scalar("SELECT count(*) FROM __outpost_sync_subscriptions")
                #expect(stored == .integer(1))

                // The probe goes away; this process takes over and syncs.
                await probe.killAbruptly()
                let item = ProbeItem()
                item.number = 100
                try realm.write { realm.add(item) }
                let session = try #require(realm.syncSession)
                try await withDeadline(.seconds(30), "the upload after the takeover") { try await session.wait(for: .upload) }
                #expect(subscriptions.state == .complete)
                try await user.logOut()
            } catch {
                await probe.killAbruptly()
                throw error
            }
        }
    }
}
