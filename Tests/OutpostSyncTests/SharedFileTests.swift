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
        try await Self.withProbeSyncing(appId: "shared-file", count: 10) { realm, user, probe in
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
        }
    }

    /// The syncing process closes its Realm and goes on running: once its changes are uploaded and its linger time
    /// has passed, its session stops and releases the file, and this process takes the file over — before, it waited
    /// until the other process logged out or exited.
    @Test func aProcessThatClosesTheFileHandsItOverWhileItRuns() async throws {
        try await Self.withProbeSyncing(
            appId: "shared-close", count: 3, probeArguments: ["--close-after-upload", "90", "--linger-time", "200"],
            ready: "closed"
        ) { realm, user, probe in
            let session = try #require(realm.syncSession)
            try await eventually("this process takes the file over") { session.connectionState == .connected }
            #expect(probe.isRunning, "the probe process still runs")
            let item = ProbeItem()
            item.number = 100
            try realm.write { realm.add(item) }
            try await withDeadline(.seconds(30), "the upload by this process") { try await session.wait(for: .upload) }
            #expect(realm.objects(ProbeItem.self).count == 4)
            try await user.logOut()
            await probe.killAbruptly()
        }
    }

    /// A transaction committed in the waiting process is uploaded by the syncing one; its verdict reaches the
    /// waiting process from the file — accepted, or rejected with the refused object — while the other still
    /// syncs. Before, `verdict(forTransaction:)` waited until this process took over.
    @Test func verdictsInTheWaitingProcessComeFromTheSyncingOne() async throws {
        try await Self.withProbeSyncing(appId: "shared-verdicts", count: 2) { realm, user, probe in
            let subscriptions = realm.subscriptions
            try await eventually("the probe's initial set completes") { subscriptions.state == .complete }
            // Only objects numbered 5 and up are in view from now on (completed through the probe's session).
            try await subscriptions.update {
                subscriptions.removeAll()
                subscriptions.append(QuerySubscription<ProbeItem>(name: "high") { $0.number >= 5 })
            }
            let session = try #require(realm.syncSession)
            let good = ProbeItem()
            good.number = 7
            try realm.write { realm.add(good) }
            let goodVersion = try #require(realm.lastCommittedSyncTransaction)
            let bad = ProbeItem()
            bad.number = 1
            let badId = bad._id
            try realm.write { realm.add(bad) }
            let badVersion = try #require(realm.lastCommittedSyncTransaction)
            // Both are acknowledged before their verdicts are asked for: the refusal is found in the file then
            // too (the acknowledgement moved while no verdict waited).
            try await withDeadline(.seconds(30), "the upload through the probe") { try await session.wait(for: .upload) }
            let accepted = try await withDeadline(.seconds(30), "the verdict on the legal write") {
                try await session.verdict(forTransaction: goodVersion)
            }
            guard case .accepted = accepted else {
                Issue.record("the legal write was not accepted: \(accepted)")
                return
            }
            let refused = try await withDeadline(.seconds(30), "the verdict on the write outside the view") {
                try await session.verdict(forTransaction: badVersion)
            }
            guard case .rejected(let infos) = refused else {
                Issue.record("the write outside the view was not rejected: \(refused)")
                return
            }
            #expect(infos.map(\.objectType) == ["ProbeItem"])
            #expect(infos.first?.primaryKey == .objectId(badId))
            await probe.killAbruptly()
            try await user.logOut()
        }
    }

    /// Runs `body` with this process's Realm of a file the probe process syncs: the probe commits `count` objects,
    /// syncs them and does what `probeArguments` say (by default it lingers, keeping the file open); once it has
    /// printed `ready`, this process opens the probe's user's file from the shared root (and waits for the lock if
    /// the probe still holds it). The probe is killed if `body` throws.
    static func withProbeSyncing(
        appId: String, count: Int, probeArguments: [String] = ["--linger", "90"], ready: String = "lingering",
        _ body: (Realm, User, SyncProbeProcess) async throws -> Void
    ) async throws {
        try await withTestServer(configuration: .development(appId: appId)) { server in
            let root = try KillTests.temporaryDirectory(appId)
            defer { try? FileManager.default.removeItem(at: root) }
            let probe = try SyncProbeProcess.launch(arguments: [
                "--server", server.baseURL, "--app", server.appId, "--root", root.path, "--count", "\(count)",
            ] + probeArguments)
            do {
                try await probe.waitUntil("the probe prints \(ready)") { $0.contains(ready) }
                let app = App(id: server.appId, configuration: AppConfiguration(baseURL: server.baseURL, rootDirectory: root))
                let user = try #require(app.currentUser, "the probe's user, kept in the shared root")
                var config = user.flexibleSyncConfiguration()
                config.objectTypes = [ProbeItem.self]
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .never)
                try await body(realm, user, probe)
            } catch {
                await probe.killAbruptly()
                throw error
            }
        }
    }
}
