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

        /// The rest of the async API an app's data layer calls: `Results.subscribe`, a write waited for with
        /// `SyncSession.wait(for:)`, the MongoClient and the Event Library; each await comes back to this actor.
        func subscribeWriteAndRead(_ user: User) async throws -> [Int] {
            let realm = try #require(realm)
            let mine = try await realm.objects(Item.self).where { $0.complexity >= 5 }.subscribe(name: "mine")
            assertIsolated()
            try realm.write { realm.add(Item(value: ["ownerId": user.id, "itemName": "actor", "complexity": 7])) }
            try await realm.syncSession!.wait(for: .upload)
            assertIsolated()
            try await realm.syncSession!.wait(for: .download)
            assertIsolated()
            let collection = user.mongoClient("mongodb-atlas").database(named: "test_data").collection(withName: "Item")
            let stored = try await collection.find(filter: ["complexity": 7])
            assertIsolated()
            #expect(stored.map { $0["itemName"] } == [.string("actor")])
            #expect(try await collection.count(filter: [:]) == 4)
            assertIsolated()
            return mine.map(\.complexity).sorted()
        }
    }

    /// The Event Library's async calls from an actor holding a Realm that records events.
    actor EventStoreActor {
        func record() async throws -> [String] {
            let realm = try await Realm(configuration: try localEventConfiguration(types: [EvPerson.self]))
            try realm.write { realm.add(EvPerson(1, "A", 1)) }
            let scope = realm.events!.beginScope(activity: "actor scope")
            _ = realm.objects(EvPerson.self).first
            try await scope.commit()
            assertIsolated()
            try await realm.events!.recordEvent(activity: "actor event")
            assertIsolated()
            return try storedEvents(realm).map(\.activity)
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
                #expect(try await store.subscribeWriteAndRead(user) == [5, 7, 8])
            }
        }
    }

    @Test func syncMongoAndEventCallsOnTheMainActorStayThere() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "main-actor-calls")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                try await SyncSessionTests.seedItems(user, [1, 6])
                #expect(try await Self.callOnTheMainActor(user) == [1, 6, 9, 12])
            }
        }
        #expect(try await Self.recordEventsOnTheMainActor() == ["main scope", "main event"])
        #expect(try await EventStoreActor().record() == ["actor scope", "actor event"])
    }

    @MainActor static func callOnTheMainActor(_ user: User) async throws -> [Int] {
        let realm = try await Realm(configuration: seedConfiguration(user, subscribed: false))
        let all = try await realm.objects(Item.self).subscribe(name: "all")
        try realm.write { realm.add(Item(value: ["ownerId": user.id, "itemName": "main", "complexity": 9])) }
        try await realm.syncSession!.wait(for: .upload)
        MainActor.assertIsolated()
        let collection = user.mongoClient("mongodb-atlas").database(named: "test_data").collection(withName: "Item")
        _ = try await collection.insertOne(["ownerId": .string(user.id), "itemName": "via mongo", "complexity": 12])
        MainActor.assertIsolated()
        #expect(try await collection.findOneDocument(filter: ["complexity": 9])?["itemName"] == .string("main"))
        MainActor.assertIsolated()
        try await realm.syncSession!.wait(for: .download)
        MainActor.assertIsolated()
        _ = await realm.asyncRefresh()
        MainActor.assertIsolated()
        let complexities = all.map(\.complexity).sorted()
        all.unsubscribe()
        return complexities
    }

    @MainActor static func recordEventsOnTheMainActor() async throws -> [String] {
        let realm = try await Realm(configuration: try localEventConfiguration(types: [EvPerson.self]))
        try realm.write { realm.add(EvPerson(1, "A", 1)) }
        let scope = realm.events!.beginScope(activity: "main scope")
        _ = realm.objects(EvPerson.self).first
        try await scope.commit()
        MainActor.assertIsolated()
        try await realm.events!.recordEvent(activity: "main event")
        MainActor.assertIsolated()
        return try storedEvents(realm).map(\.activity)
    }
}
