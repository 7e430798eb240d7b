import Foundation
@testable import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// Async APIs keep the caller's actor, as SwiftUI apps and actors holding a Realm need: a Realm opened with
/// `try await Realm(configuration:)` on the main actor or on a custom actor is used there only, and
/// `subscriptions.update` and `Results.subscribe` run there (they ran on the generic executor: in Swift 6 mode the
/// calls did not compile, in Swift 5 mode the confinement check trapped).
@Suite(.timeLimit(.minutes(3))) struct ActorIsolationTests {
    @Test func aSubscriptionUpdateOnTheMainActorStaysThere() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "main-actor-subs")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                try await SyncSessionTests.seedItems(user, [1, 3, 6])
                #expect(try await Self.subscribeOnTheMainActor(user) == [1, 3, 6])
            }
        }
    }

    /// What a SwiftUI view model does: open the Realm and change its subscriptions on the main actor.
    @MainActor static func subscribeOnTheMainActor(_ user: User) async throws -> [Int] {
        let realm = try await Realm(configuration: seedConfiguration(user, subscribed: false))
        try await realm.subscriptions.update {
            MainActor.assertIsolated()
            realm.subscriptions.append(QuerySubscription<Item>(name: "easy") { $0.complexity <= 4 })
        }
        MainActor.assertIsolated()
        #expect(realm.objects(Item.self).map(\.complexity).sorted() == [1, 3])
        let hard = try await realm.objects(Item.self).where { $0.complexity > 4 }.subscribe(name: "hard")
        MainActor.assertIsolated()
        #expect(hard.map(\.complexity) == [6])
        return realm.objects(Item.self).map(\.complexity).sorted()
    }

    /// An actor that holds its Realm, as an app's data layer does.
    actor ItemStore {
        var realm: Realm?

        func open(_ configuration: Realm.Configuration) async throws {
            realm = try await Realm(configuration: configuration)
        }

        func subscribe(upTo complexity: Int) async throws -> [Int] {
            let realm = try #require(realm)
            try await realm.subscriptions.update {
                self.assertIsolated()
                realm.subscriptions.append(QuerySubscription<Item>(name: "upTo") { $0.complexity <= complexity })
            }
            return realm.objects(Item.self).map(\.complexity).sorted()
        }
    }

    @Test func aSubscriptionUpdateOnACustomActorStaysThere() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "actor-subs")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                try await SyncSessionTests.seedItems(user, [2, 5, 8])
                let store = ItemStore()
                try await store.open(seedConfiguration(user, subscribed: false))
                #expect(try await store.subscribe(upTo: 5) == [2, 5])
            }
        }
    }
}
