import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// `subscriptions.update` from a Realm whose read is older than the newest subscription set.
@Suite(.timeLimit(.minutes(3))) struct SubscriptionUpdateTests {
    /// Another thread's Realm keeps its read from before a newer set was committed, then updates its subscriptions
    /// without refreshing. The new set is numbered after the newest one (it used to take the newest one's number
    /// and stop the process), holds what the block made of the set that Realm saw, as the original's update of an
    /// older set does, and completes; the set it replaced is superseded.
    @Test func anUpdateFromARealmWithAnOlderReadIsNumberedAfterTheNewestSet() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = seedConfiguration(user)
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                #expect(realm.subscriptions.count == 1)

                let opened = DispatchSemaphore(value: 0)
                let proceed = DispatchSemaphore(value: 0)
                let done = DispatchSemaphore(value: 0)
                let seen = KillTests.LockedValue<[String]>([])
                Thread {
                    let stale = try! Realm(configuration: config)
                    _ = stale.objects(Item.self).count  // its read starts here
                    opened.signal()
                    proceed.wait()
                    let subscriptions = stale.subscriptions
                    subscriptions.update {
                        subscriptions.append(QuerySubscription<Item>(name: "stale") { $0.complexity == 9 })
                    }
                    seen.withLock { $0 = subscriptions.map { $0.name ?? "-" } }
                    done.signal()
                }.start()
                await wait(opened)

                let fresh = realm.subscriptions
                try await fresh.update {
                    fresh.append(QuerySubscription<Item>(name: "fresh") { $0.complexity == 1 })
                }
                #expect(fresh.state == .complete)
                proceed.signal()
                await wait(done)

                #expect(seen.withLock { $0 } == ["-", "stale"], "the block's set: the one that Realm saw, plus its change")
                realm.refresh()
                let newest = realm.subscriptions
                #expect(newest.first(named: "stale")?.queryString == "complexity == 9")
                #expect(newest.first(named: "fresh") == nil)
                try await eventually { newest.state == .complete }
                #expect(fresh.state == .superseded)
            }
        }
    }

    private func wait(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }
}
