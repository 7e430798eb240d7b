import Foundation
import Outpost
import OutpostTesting
import Synchronization
import Testing

@Suite struct ThreadSafeReferenceTests {
    @Test func objectReferenceResolvesOnAnotherThread() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let realm = try Realm(configuration: configuration)
        try ThreadingFixture.seed(realm, count: 2)
        let person = realm.object(ofType: TSPerson.self, forPrimaryKey: 1)!
        let reference = ThreadSafeReference(to: person)
        #expect(!reference.isInvalidated)
        ThreadingFixture.onNewThread {
            let other = try! Realm(configuration: configuration)
            let resolved = other.resolve(reference)
            #expect(reference.isInvalidated)
            #expect(resolved?.name == "p1")
            try! other.write { resolved?.name = "from thread" }
        }
        #expect(person.name == "p1")
        realm.refresh()
        #expect(person.name == "from thread")
    }

    /// A reference resolved in a Realm of another file denotes nothing there: nil, as Realm answers.
    @Test func aReferenceResolvedInAnotherFileIsNil() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        try ThreadingFixture.seed(realm, count: 1)
        let reference = ThreadSafeReference(to: realm.object(ofType: TSPerson.self, forPrimaryKey: 1)!)
        var elsewhere = ThreadingFixture.configuration(dir)
        elsewhere.fileURL = dir.file("elsewhere.realm")
        let other = try Realm(configuration: elsewhere)
        try ThreadingFixture.seed(other, count: 1)
        #expect(other.resolve(reference) == nil)
        #expect(reference.isInvalidated)
    }

    @Test func collectionsAndResultsResolve() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let realm = try Realm(configuration: configuration)
        try ThreadingFixture.seed(realm, count: 3)
        let person = realm.object(ofType: TSPerson.self, forPrimaryKey: 2)!
        let dogs = ThreadSafeReference(to: person.dogs)
        let tags = ThreadSafeReference(to: person.tags)
        let scores = ThreadSafeReference(to: person.scores)
        let owners = ThreadSafeReference(to: person.dogs[0].owners)
        let results = ThreadSafeReference(
            to: realm.objects(TSPerson.self).filter("id >= 2 AND ANY dogs == %@", person.dogs[1]).sorted(byKeyPath: "id"))
        ThreadingFixture.onNewThread {
            let other = try! Realm(configuration: configuration)
            #expect(other.resolve(dogs)?.map(\.name) == ["d2-0", "d2-1"])
            #expect(other.resolve(tags).map { Set($0) } == ["t2"])
            #expect(other.resolve(scores)?["s"] == 2)
            #expect(other.resolve(owners)?.map(\.id) == [2])
            let resolved = other.resolve(results)
            #expect(resolved?.map(\.id) == [2])
            try! other.write { other.delete(other.object(ofType: TSPerson.self, forPrimaryKey: 2)!) }
            #expect(resolved?.count == 0)
        }
    }

    @Test func deletedObjectResolvesToNil() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let realm = try Realm(configuration: configuration)
        try ThreadingFixture.seed(realm, count: 2)
        let person = realm.object(ofType: TSPerson.self, forPrimaryKey: 1)!
        let reference = ThreadSafeReference(to: person)
        let listReference = ThreadSafeReference(to: person.dogs)
        try realm.write { realm.delete(person) }
        ThreadingFixture.onNewThread {
            let other = try! Realm(configuration: configuration)
            #expect(other.resolve(reference) == nil)
            #expect(other.resolve(listReference) == nil)
        }
    }

    @Test func resolvingInAnOlderRealmRefreshesIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        #expect(realm.objects(TSPerson.self).isEmpty)
        let box = Box<ThreadSafeReference<TSPerson>>()
        ThreadingFixture.onNewThread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.add(TSPerson(id: 7, name: "new")) }
            box.set(ThreadSafeReference(to: other.object(ofType: TSPerson.self, forPrimaryKey: 7)!))
        }
        #expect(realm.objects(TSPerson.self).isEmpty)  // not refreshed yet
        let resolved = realm.resolve(try #require(box.get()))
        #expect(resolved?.name == "new")
        #expect(realm.objects(TSPerson.self).count == 1)
    }

    @Test func aReferenceResolvesOnce() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
            try ThreadingFixture.seed(realm, count: 1)
            let reference = ThreadSafeReference(to: realm.objects(TSPerson.self).first!)
            _ = realm.resolve(reference)
            _ = realm.resolve(reference)
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Can only resolve a thread safe reference once."))
        }
    }

    @Test func referencesToUnmanagedObjectsTrap() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ThreadSafeReference(to: TSPerson())
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Cannot construct reference to unmanaged object"))
        }
    }
}

/// A value handed from one thread to another in a test.
final class Box<T: Sendable>: Sendable {
    private let storage = Mutex<T?>(nil)
    func set(_ value: T) { storage.withLock { $0 = value } }
    func get() -> T? { storage.withLock { $0 } }
}
