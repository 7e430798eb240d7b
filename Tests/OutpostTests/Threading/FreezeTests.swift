import Foundation
import Outpost
import OutpostTesting
import Synchronization
import Testing

@Suite struct FreezeTests {
    @Test func frozenRealmKeepsItsVersion() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        try ThreadingFixture.seed(realm, count: 3)
        #expect(!realm.isFrozen)
        let frozen = realm.freeze()
        #expect(frozen.isFrozen)
        #expect(frozen.freeze() == frozen)
        #expect(realm.freeze() == frozen)  // same version: the same frozen Realm
        let person = try #require(frozen.object(ofType: TSPerson.self, forPrimaryKey: 1))
        #expect(person.isFrozen)
        try realm.write {
            realm.object(ofType: TSPerson.self, forPrimaryKey: 1)!.name = "changed"
            realm.add(TSPerson(id: 4, name: "p4"))
        }
        #expect(person.name == "p1")
        #expect(frozen.objects(TSPerson.self).count == 3)
        #expect(!frozen.refresh())
        #expect(frozen.objects(TSPerson.self).count == 3)
        #expect(realm.objects(TSPerson.self).count == 4)
        let later = realm.freeze()
        #expect(later != frozen)
        #expect(later.objects(TSPerson.self).count == 4)
        #expect(frozen.thaw() == realm)
        #expect(realm.thaw() == realm)
    }

    @Test func frozenObjectsAndCollections() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        try ThreadingFixture.seed(realm, count: 2)
        let live = realm.object(ofType: TSPerson.self, forPrimaryKey: 1)!
        let person = live.freeze()
        let dogs = live.dogs.freeze()
        let tags = live.tags.freeze()
        let scores = live.scores.freeze()
        let owners = live.dogs[0].owners.freeze()
        let results = realm.objects(TSDog.self).filter("age == 1").freeze()
        let linked = realm.objects(TSPerson.self).filter("ANY dogs == %@", live.dogs[0]).freeze()
        for frozen in [person.isFrozen, dogs.isFrozen, tags.isFrozen, scores.isFrozen, owners.isFrozen,
                       results.isFrozen, linked.isFrozen] {
            #expect(frozen)
        }
        #expect(!live.isFrozen && !live.dogs.isFrozen && !realm.objects(TSDog.self).isFrozen)
        #expect(person.freeze() === person)
        try realm.write {
            live.name = "x"
            live.dogs.removeAll()
            live.tags.insert("new")
            live.scores["s"] = 99
            realm.add(TSDog())
        }
        #expect(person.name == "p1")
        #expect(dogs.map(\.name) == ["d1-0", "d1-1"])
        #expect(Set(tags) == ["t1"])
        #expect(scores["s"] == 1)
        #expect(owners.map(\.id) == [1])
        #expect(results.count == 2)
        #expect(linked.map(\.id) == [1])
        #expect(results.filter("name BEGINSWITH 'd2'").count == 1)  // queries on frozen results
        #expect(person.dogs.isFrozen && person.dogs.count == 2)

        let thawed = try #require(person.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.name == "x")
        #expect(thawed == live)
        #expect(dogs.thaw()?.count == 0)
        #expect(tags.thaw()?.contains("new") == true)
        #expect(scores.thaw()?["s"] == 99)
        #expect(results.thaw()?.count == 2)
        #expect(results.thaw()?.filter("name == ''").count == 0)
        #expect(realm.freeze().objects(TSDog.self).thaw()?.count == 5)
        #expect(owners.thaw()?.count == 0)
        #expect(live.thaw() === live)
        try realm.write { realm.delete(live) }
        #expect(person.thaw() == nil)
        #expect(dogs.thaw() == nil)
        #expect(person.name == "p1")
    }

    @Test func freezeInsideWriteTransactionSeesTheVersionBeforeIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        try ThreadingFixture.seed(realm, count: 1)
        let live = realm.object(ofType: TSPerson.self, forPrimaryKey: 1)!
        realm.beginWrite()
        live.name = "inside"
        let frozen = live.freeze()
        #expect(frozen.name == "p1")
        #expect(realm.freeze().objects(TSPerson.self).count == 1)
        realm.cancelWrite()
    }

    @Test func freezeOfAStaleRealmKeepsItsVersion() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let realm = try Realm(configuration: configuration)
        try ThreadingFixture.seed(realm, count: 2)
        let before = realm.object(ofType: TSPerson.self, forPrimaryKey: 1)!
        ThreadingFixture.onNewThread {
            let other = try! Realm(configuration: configuration)
            try! other.write {
                other.add(TSPerson(id: 3, name: "p3"))
                other.object(ofType: TSPerson.self, forPrimaryKey: 1)!.name = "renamed"
            }
        }
        // This thread's Realm has not refreshed: its frozen copy is its own version, not the latest.
        #expect(realm.objects(TSPerson.self).count == 2)
        let frozen = realm.freeze()
        #expect(frozen.objects(TSPerson.self).count == 2)
        #expect(before.freeze().name == "p1")
        #expect(frozen.objects(TSPerson.self).map(\.dogs.count) == [2, 2])
        realm.refresh()
        #expect(realm.freeze().objects(TSPerson.self).count == 3)
        #expect(realm.freeze().object(ofType: TSPerson.self, forPrimaryKey: 1)?.name == "renamed")
    }

    @Test func frozenValuesAreReadConcurrentlyFromManyThreads() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        try ThreadingFixture.seed(realm, count: 200, dogsEach: 3)
        let box = UncheckedSendable(realm.objects(TSPerson.self).sorted(byKeyPath: "id").freeze())
        let expected = (1...200).reduce(0, +)
        let sums = Sums()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let results = box.value
            var sum = 0
            var dogs = 0
            for person in results {
                sum += person.scores["s"] ?? 0
                dogs += person.dogs.count
                _ = person.dogs.first?.owners.count
            }
            #expect(results.filter("id > %@", 100).count == 100)
            #expect(results[i].id == i + 1)
            sums.add(sum, dogs)
        }
        #expect(sums.values == Array(repeating: Pair(sum: expected, dogs: 600), count: 8))
        // Writing on the owning thread meanwhile leaves the frozen results alone.
        try realm.write { realm.deleteAll() }
        #expect(box.value.count == 200)
    }

    @Test func freezeIsCheapWhenUpToDate() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        try ThreadingFixture.seed(realm, count: 1)
        for i in 0..<50 {
            try realm.write { realm.object(ofType: TSPerson.self, forPrimaryKey: 1)!.name = "n\(i)" }
            #expect(realm.objects(TSPerson.self).freeze().first?.name == "n\(i)")
        }
    }

    @Test func invalidatedFrozenRealm() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let frozen = try Realm(configuration: ThreadingFixture.configuration(dir)).freeze()
            frozen.invalidate()
            _ = frozen.objects(TSPerson.self)
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Cannot read from a frozen Realm which has been invalidated."))
        }
    }

    @Test func modifyingAFrozenObjectTraps() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
            try ThreadingFixture.seed(realm, count: 1)
            let frozen = realm.objects(TSPerson.self).first!.freeze()
            try realm.write { frozen.name = "nope" }
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Attempting to modify a frozen object - call thaw on the Object instance first."))
        }
    }

    @Test func freezingAnObjectCreatedInTheWriteTraps() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
            realm.beginWrite()
            let person = realm.create(TSPerson.self, value: ["id": 1])
            _ = person.freeze()
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Cannot freeze an object in the same write transaction as it was created in."))
        }
    }

    @Test func observingFrozenResultsTraps() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
            _ = realm.objects(TSPerson.self).freeze().observe { _ in }
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Frozen Realms do not change and do not have change notifications."))
        }
    }

    @Test func unmanagedObjectsCannotBeFrozen() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = TSPerson().freeze()
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Unmanaged objects cannot be frozen."))
        }
    }

    @Test func writeTransactionOnFrozenRealmTraps() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let frozen = try Realm(configuration: ThreadingFixture.configuration(dir)).freeze()
            try frozen.write {}
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Can't perform transactions on a frozen Realm"))
        }
    }
}

struct Pair: Equatable, Sendable {
    let sum: Int
    let dogs: Int
}

/// Results gathered from concurrent workers.
final class Sums: Sendable {
    private let storage = Mutex<[Pair]>([])
    func add(_ sum: Int, _ dogs: Int) { storage.withLock { $0.append(Pair(sum: sum, dogs: dogs)) } }
    var values: [Pair] { storage.withLock { $0 } }
}
