import Foundation
import Outpost
import OutpostTesting
import Testing

/// Changes delivered to a test as they come: the observer yields, the test awaits the next one.
final class Deliveries<T: Sendable>: Sendable {
    let stream: AsyncStream<T>
    private let continuation: AsyncStream<T>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: T.self)
    }

    func yield(_ value: T) { continuation.yield(value) }

    /// The next delivery (the suite's time limit stops a test whose delivery never comes).
    func next() async -> T? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}

/// An app's model actor: it holds a Realm confined to itself and changes it.
actor PeopleStore {
    var realm: Realm?

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func add(_ id: Int, _ name: String) throws {
        let realm = try #require(realm)
        try realm.write { realm.add(NPerson(id, name, age: id * 10)) }
    }

    func rename(_ id: Int, _ name: String) throws {
        let realm = try #require(realm)
        try realm.write { realm.object(ofType: NPerson.self, forPrimaryKey: id)?.name = name }
    }

    func count() -> Int { realm?.objects(NPerson.self).count ?? -1 }
}

/// `observe(keyPaths:on: actor)`: the block runs isolated to the actor, with the collection or object resolved in
/// a Realm confined there; called from `@MainActor` and from custom actors, as apps do.
@Suite(.timeLimit(.minutes(1))) struct ActorObserveTests {
    /// Writes on a thread of its own, as another part of the app would.
    static func write(_ configuration: Realm.Configuration, _ body: @escaping @Sendable (Realm) -> Void) async throws {
        let carried = UncheckedSendable(configuration)
        try await Task.detached {
            let realm = try Realm(configuration: carried.value)
            try realm.write { body(realm) }
        }.value
    }

    @MainActor @Test func resultsObservedOnTheMainActor() async throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let realm = try await Realm(configuration: f.configuration)
        let seen = Deliveries<Seen>()
        let token = await realm.objects(NPerson.self).sorted(byKeyPath: "age").observe(on: MainActor.shared) { actor, change in
            MainActor.preconditionIsolated()
            seen.yield(Seen(change) { $0.count })
        }
        #expect(await seen.next() == .initial(count: 5))
        try await Self.write(f.configuration) { realm in realm.add(NPerson(6, "Six", age: 60)) }
        #expect(await seen.next() == .update(deletions: [], insertions: [5], modifications: []))
        token.invalidate()
    }

    @Test func resultsObservedOnACustomActorHoldingTheRealm() async throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let store = PeopleStore()
        try await store.open(f.configuration)
        let realm = try await Realm(configuration: f.configuration)  // usable by this task on any thread
        let seen = Deliveries<[String]>()
        let people = realm.objects(NPerson.self).sorted(byKeyPath: "age")
        let token = await people.observe(keyPaths: ["name"], on: store) { store, change in
            // Isolated to the store: its own Realm and state are reachable without `await`.
            let names: [String]
            switch change {
            case .initial(let people): names = people.map(\.name)
            case .update(let people, _, _, _): names = people.map(\.name) + ["count \(store.count())"]
            case .error: names = ["error"]
            }
            seen.yield(names)
        }
        #expect(await seen.next() == ["P1", "P2", "P3", "P4", "P5"])
        // A write on the store's own Realm, and one from this test's Realm on another thread.
        try await store.rename(2, "Two")
        #expect(await seen.next() == ["P1", "Two", "P3", "P4", "P5", "count 5"])
        try await store.add(6, "Six")
        #expect(await seen.next() == ["P1", "Two", "P3", "P4", "P5", "Six", "count 6"])
        // Not a change of a watched property: no delivery; the next one is the insertion after it.
        try await Self.write(f.configuration) { realm in realm.object(ofType: NPerson.self, forPrimaryKey: 1)?.scores.append(1) }
        try await Self.write(f.configuration) { realm in realm.add(NPerson(7, "Seven", age: 70)) }
        #expect(await seen.next() == ["P1", "Two", "P3", "P4", "P5", "Six", "Seven", "count 7"])
        token.invalidate()
    }

    @Test func everyCollectionKindAndTypedKeyPaths() async throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let realm = try await Realm(configuration: f.configuration)
        let person = try #require(realm.object(ofType: NPerson.self, forPrimaryKey: 1))
        try realm.write {
            person.scores.append(objectsIn: [1, 2])
            person.tags.insert("a")
            person.prices["x"] = 1
            person.pets.append(NPet("rex"))
        }
        let store = PeopleStore()
        let seen = Deliveries<String>()
        let tokens = [
            await person.scores.observe(on: store) { _, change in seen.yield("scores \(Seen(change) { $0.count })") },
            await person.tags.observe(on: store) { _, change in seen.yield("tags \(Seen(change) { $0.count })") },
            await AnyRealmCollection(person.pets).observe(keyPaths: [\NPet.name], on: store) { _, change in
                seen.yield("pets \(Seen(change) { $0.count })")
            },
        ]
        var initial: Set<String> = []
        for _ in 0..<3 { initial.insert(await seen.next() ?? "") }
        #expect(initial == ["scores initial(count: 2)", "tags initial(count: 1)", "pets initial(count: 1)"])
        try await Self.write(f.configuration) { realm in
            realm.object(ofType: NPerson.self, forPrimaryKey: 1)!.scores.append(3)
        }
        #expect(await seen.next() == "scores update(deletions: [], insertions: [2], modifications: [])")
        try await Self.write(f.configuration) { realm in
            realm.object(ofType: NPerson.self, forPrimaryKey: 1)!.pets[0].name = "Rex"
        }
        #expect(await seen.next() == "pets update(deletions: [], insertions: [], modifications: [0])")
        tokens.forEach { $0.invalidate() }

        let mapSeen = Deliveries<[String]>()
        let mapToken = await person.prices.observe(on: store) { _, change in
            switch change {
            case .initial(let map): mapSeen.yield(map.keys.sorted())
            case .update(let map, let deletions, let insertions, let modifications):
                mapSeen.yield(map.keys.sorted() + ["-\(deletions)", "+\(insertions)", "~\(modifications)"])
            case .error: mapSeen.yield(["error"])
            }
        }
        #expect(await mapSeen.next() == ["x"])
        try await Self.write(f.configuration) { realm in realm.object(ofType: NPerson.self, forPrimaryKey: 1)!.prices["y"] = 2 }
        #expect(await mapSeen.next() == ["x", "y", "-[]", "+[\"y\"]", "~[]"])
        mapToken.invalidate()
    }

    @MainActor @Test func objectObservedOnAnActor() async throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let realm = try await Realm(configuration: f.configuration)
        let person = try #require(realm.object(ofType: NPerson.self, forPrimaryKey: 3))
        let store = PeopleStore()
        try await store.open(f.configuration)
        let seen = Deliveries<String>()
        let token = await person.observe(keyPaths: [\NPerson.name], on: store) { (_: isolated PeopleStore, change: ObjectChange<NPerson>) in
            switch change {
            case .change(let object, let properties):
                seen.yield("\(object.name): \(properties.map(\.name))")
            case .deleted: seen.yield("deleted")
            case .error: seen.yield("error")
            }
        }
        try await store.rename(3, "Three")  // on the store's Realm
        #expect(await seen.next() == "Three: [\"name\"]")
        try await Self.write(f.configuration) { realm in
            let three = realm.object(ofType: NPerson.self, forPrimaryKey: 3)!
            three.age = 1  // not watched
            realm.delete(three)
        }
        #expect(await seen.next() == "deleted")
        token.invalidate()
    }

    @Test func anInvalidatedTokenStopsDeliveries() async throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        let store = PeopleStore()
        let realm = try await Realm(configuration: f.configuration)
        let seen = Deliveries<Seen>()
        let token = await realm.objects(NPerson.self).observe(on: store) { _, change in seen.yield(Seen(change) { $0.count }) }
        #expect(await seen.next() == .initial(count: 0))
        token.invalidate()
        try await Self.write(f.configuration) { realm in realm.add(NPerson(1, "One", age: 1)) }
        // A later observation sees the write; the invalidated one delivered nothing in between.
        let after = Deliveries<Seen>()
        let second = await realm.objects(NPerson.self).observe(on: store) { _, change in after.yield(Seen(change) { $0.count }) }
        #expect(await after.next() == .initial(count: 1))
        second.invalidate()
        seen.yield(.error)  // the marker comes next only if nothing else was delivered
        #expect(await seen.next() == .error)
    }

    /// A Realm opened on an actor follows other threads' commits and notifies its own observers there.
    @Test func anActorsRealmRefreshesAndNotifiesOnTheActor() async throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        let store = PeopleStore()
        try await store.open(f.configuration)
        #expect(await store.count() == 0)
        let seen = Deliveries<Int>()
        let token = await store.observeCount { seen.yield($0) }
        #expect(await seen.next() == 0)
        try await Self.write(f.configuration) { realm in realm.add(NPerson(1, "One", age: 1)) }
        #expect(await seen.next() == 1)
        #expect(await store.count() == 1)
        token.invalidate()
    }

    /// Observing from a cancelled task registers nothing and gives a token already invalidated (Realm's too).
    @Test func aCancelledTaskGetsAnInvalidatedToken() async throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        let store = PeopleStore()
        let configuration = f.configuration
        let task = Task { @MainActor () -> Bool in
            let realm = try! await Realm(configuration: configuration)
            withUnsafeCurrentTask { $0?.cancel() }
            let token = await realm.objects(NPerson.self).observe(on: store) { _, _ in Issue.record("registered") }
            return token.invalidate()
        }
        #expect(await task.value == false)
    }

    /// A projection observed on a custom actor from `@MainActor`, and on the main actor from a custom actor.
    @MainActor @Test func projectionsObservedOnActors() async throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let realm = try await Realm(configuration: f.configuration)
        let card = NPersonCard(projecting: try #require(realm.object(ofType: NPerson.self, forPrimaryKey: 3)))
        let store = PeopleStore()
        try await store.open(f.configuration)
        let seen = Deliveries<String>()
        let token = await card.observe(keyPaths: [\NPersonCard.title], on: store) {
            (store: isolated PeopleStore, change: ObjectChange<NPersonCard>) in
            store.assertIsolated()
            if case .change(let card, _) = change { seen.yield("store: \(card.title)") } else { seen.yield("other") }
        }
        MainActor.assertIsolated()
        try await store.rename(3, "Three")
        #expect(await seen.next() == "store: Three")
        token.invalidate()

        let fromStore = await store.observeCard(3) { seen.yield("main: \($0)") }
        try await Self.write(f.configuration) { realm in realm.object(ofType: NPerson.self, forPrimaryKey: 3)!.name = "3" }
        #expect(await seen.next() == "main: 3")
        fromStore.invalidate()
    }
}

extension PeopleStore {
    /// Observes the people count on the store's own Realm (no `on:`: delivered on the actor).
    func observeCount(_ report: @escaping @Sendable (Int) -> Void) -> NotificationToken {
        realm!.objects(NPerson.self).observe { change in
            switch change {
            case .initial(let people), .update(let people, _, _, _): report(people.count)
            case .error: report(-1)
            }
        }
    }
}

final class NPersonCard: Projection<NPerson> {
    @Projected(\NPerson.name) var title
    @Projected(\NPerson.age) var years
}

extension PeopleStore {
    /// Observes a projection of the store's own person on the main actor, called from this actor.
    func observeCard(_ id: Int, _ report: @escaping @Sendable (String) -> Void) async -> NotificationToken {
        let card = NPersonCard(projecting: realm!.object(ofType: NPerson.self, forPrimaryKey: id)!)
        let token = await card.observe(keyPaths: ["name"], on: MainActor.shared) { _, change in
            MainActor.assertIsolated()
            if case .change(let card, _) = change { report(card.title) } else { report("other") }
        }
        assertIsolated()
        return token
    }
}
