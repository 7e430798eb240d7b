import Foundation
@testable import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// The subscription and opening calls of issue #4 that other suites use only in passing, each against a real server:
/// removing by name, by type and query, all of a type; the `.pending` state; `rerunOnOpen`; `subscribe`'s
/// `waitForSync` modes; `downloadBeforeOpen: .once`; and an open whose initial subscription the server refuses.
@Suite(.timeLimit(.minutes(3))) struct SubscriptionAPITests {
    @Test func subscriptionsAreRemovedByNameByQueryAndByType() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "remove-subs")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                try await SyncSessionTests.seedItems(user, [1, 3, 6, 9])
                let realm = try await Realm(configuration: seedConfiguration(user, subscribed: false))
                let subscriptions = realm.subscriptions
                try await subscriptions.update {
                    subscriptions.append(QuerySubscription<Item>(name: "easy") { $0.complexity <= 2 })
                    subscriptions.append(QuerySubscription<Item>(name: "middle") { $0.complexity == 3 })
                    subscriptions.append(QuerySubscription<Item> { $0.complexity > 8 })
                    subscriptions.append(QuerySubscription<Item>(name: "six", where: "complexity == %@", 6))
                }
                realm.refresh()
                #expect(realm.objects(Item.self).count == 4)

                try await subscriptions.update { subscriptions.remove(named: "easy") }
                #expect(subscriptions.count == 3 && subscriptions.first(named: "easy") == nil)
                try await subscriptions.update { subscriptions.remove(ofType: Item.self) { $0.complexity > 8 } }
                #expect(subscriptions.count == 2)
                try await subscriptions.update { subscriptions.remove(ofType: Item.self, where: "complexity == %@", 6) }
                #expect(subscriptions.count == 1 && subscriptions.first(named: "middle") != nil)
                try await realm.syncSession!.wait(for: .download)
                realm.refresh()
                #expect(realm.objects(Item.self).map(\.complexity) == [3], "only the middle item stays in view")

                try await subscriptions.update { subscriptions.removeAll(ofType: Item.self) }
                #expect(subscriptions.isEmpty)
                try await realm.syncSession!.wait(for: .download)
                try await eventually("the view empties") {
                    realm.refresh()
                    return realm.objects(Item.self).isEmpty
                }
                // Removing what is not there changes nothing.
                try await subscriptions.update { subscriptions.remove(named: "never") }
                #expect(subscriptions.isEmpty && subscriptions.state == .complete)
            }
        }
    }

    /// A set committed while the session cannot reach the server stays `.pending` until it can.
    @Test func aSetIsPendingUntilTheServerHasIt() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "pending-subs")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let realm = try await Realm(configuration: seedConfiguration(user, subscribed: false))
                let session = try #require(realm.syncSession)
                session.suspend()
                let subscriptions = realm.subscriptions
                subscriptions.update({ subscriptions.append(QuerySubscription<Item>(name: "all") { $0.complexity >= 0 }) },
                                     onComplete: { _ in })
                #expect(subscriptions.state == .pending)
                try await Task.sleep(for: .milliseconds(200))
                #expect(subscriptions.state == .pending)
                session.resume()
                try await eventually("the set completes") { realm.subscriptions.state == .complete }
            }
        }
    }

    /// `initialSubscriptions` run when the file is created, and on every open with `rerunOnOpen`.
    @Test func initialSubscriptionsRunAgainOnlyWithRerunOnOpen() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "rerun-subs")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let runs = KillTests.LockedValue(0)
                func configuration(rerun: Bool, file: String) -> Realm.Configuration {
                    var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                        runs.withLock { $0 += 1 }
                        if subscriptions.first(named: "easy") == nil {
                            subscriptions.append(QuerySubscription<Item>(name: "easy") { $0.complexity <= 4 })
                        }
                    }, rerunOnOpen: rerun)
                    config.objectTypes = [Item.self]
                    config.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent(file)
                    return config
                }
                for rerun in [false, true] {
                    runs.withLock { $0 = 0 }
                    let config = configuration(rerun: rerun, file: "rerun-\(rerun).realm")
                    do {
                        let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                        #expect(realm.subscriptions.first(named: "easy") != nil)
                    }
                    // A new instance (another dispatch queue: the cached one is per queue).
                    let queue = DispatchQueue(label: "reopen-\(rerun)")
                    try queue.sync { _ = try Realm(configuration: config, queue: queue) }
                    #expect(runs.withLock { $0 } == (rerun ? 2 : 1), "rerunOnOpen \(rerun)")
                }
            }
        }
    }

    /// `subscribe(waitForSync:)`: `.never` returns at once, `.onCreation` (the default) waits only for a new
    /// subscription, `.always` waits for the server every time.
    @Test func subscribeWaitsAsItsModeSays() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "subscribe-modes")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                try await SyncSessionTests.seedItems(user, [1, 2])
                let realm = try await Realm(configuration: seedConfiguration(user, subscribed: false))
                let results = realm.objects(Item.self).where { $0.complexity < 5 }
                let never = try await results.subscribe(name: "low", waitForSync: .never)
                #expect(realm.subscriptions.first(named: "low") != nil)
                #expect(never.count <= 2, "returned without waiting for the server")
                let always = try await results.subscribe(name: "low", waitForSync: .always)
                #expect(always.count == 2, "waited for the server's items")
                // Another user's change reaches this file; `.always` waits for it even for an existing subscription.
                try await SyncSessionTests.seedItems(user, [3])
                let again = try await results.subscribe(name: "low", waitForSync: .always, timeout: 30)
                #expect(again.count == 3)
                #expect(realm.subscriptions.count == 1)
            }
        }
    }

    /// `downloadBeforeOpen: .once` downloads when the file is new, and opens at once when it exists.
    @Test func openOnceDownloadsOnlyTheFirstTime() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "open-once")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                try await SyncSessionTests.seedItems(user, [1, 2])
                let config = seedConfiguration(user)
                let first = try await Realm(configuration: config, downloadBeforeOpen: .once)
                #expect(first.objects(Item.self).count == 2)
                first.syncSession!.suspend()
                try await SyncSessionTests.seedItems(user, [3])
                // The file exists: `.once` opens it at once, with what it holds, even with the session suspended.
                let second = try await withDeadline(.seconds(10), "the second open") {
                    UncheckedSendable(try await Realm(configuration: config, downloadBeforeOpen: .once))
                }.value
                #expect(second.objects(Item.self).count == 2)
                #expect(second.syncSession?.state == .inactive, "`.once` does not resume a suspended session")
            }
        }
    }

    /// An open that downloads first fails with `Realm.Error.subscriptionFailed` when the server refuses the initial
    /// subscription (here: a field that is not queryable).
    @Test func anOpenWhoseInitialSubscriptionIsRefusedFails() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "open-refused-subs")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                    subscriptions.append(QuerySubscription<Item> { $0.itemName == "x" })
                })
                config.objectTypes = [Item.self]
                let opening = config
                let error = await #expect(throws: Realm.Error.self) {
                    try await withDeadline(.seconds(30), "the open") {
                        _ = try await Realm(configuration: opening, downloadBeforeOpen: .always)
                    }
                }
                #expect(error?.code == .subscriptionFailed)
                #expect(error?.localizedDescription.contains("is not a queryable field") == true, "\(String(describing: error))")
            }
        }
    }
}
