import Foundation
import Outpost
import OutpostTesting
import Synchronization
import Testing

@Suite struct ConfinementTests {
    @Test func realmUsedFromAnotherThreadTraps() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = UncheckedSendable(try Realm(configuration: ThreadingFixture.configuration(dir)))
            ThreadingFixture.onNewThread { _ = realm.value.objects(TSPerson.self).count }
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Realm accessed from incorrect thread."))
        }
    }

    @Test func objectUsedFromAnotherThreadTraps() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
            try ThreadingFixture.seed(realm, count: 1)
            let person = UncheckedSendable(realm.objects(TSPerson.self).first!)
            ThreadingFixture.onNewThread { _ = person.value.name }
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Realm accessed from incorrect thread."))
        }
    }

    @Test func queueConfinedRealmWorksOnItsQueue() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let queue = DispatchQueue(label: "outpost.tests.confined")
        let count = queue.sync {
            let realm = try! Realm(configuration: configuration, queue: queue)
            try! realm.write { realm.add(TSPerson(id: 1, name: "q")) }
            // Blocks on the queue may run on different threads: the Realm follows the queue.
            return realm.objects(TSPerson.self).count
        }
        #expect(count == 1)
        let done = DispatchSemaphore(value: 0)
        let names = Box<[String]>()
        queue.async {
            let realm = try! Realm(configuration: configuration, queue: queue)
            names.set(realm.objects(TSPerson.self).map(\.name))
            done.signal()
        }
        done.wait()
        #expect(names.get() == ["q"])
    }

    actor Store {
        let configuration: Realm.Configuration
        init(configuration: Realm.Configuration) { self.configuration = configuration }

        func addAndCount(_ id: Int) async throws -> Int {
            let realm = try await Realm(configuration: configuration)
            try realm.write { realm.add(TSPerson(id: id, name: "actor")) }
            return realm.objects(TSPerson.self).count
        }
    }

    @Test func actorIsolatedRealm() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = Store(configuration: ThreadingFixture.configuration(dir))
        #expect(try await store.addAndCount(1) == 1)
        #expect(try await store.addAndCount(2) == 2)
    }

    @Test func sameThreadGetsTheCachedInstance() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let first = try Realm(configuration: configuration)
        let second = try Realm(configuration: configuration)
        #expect(first == second)
        let box = UncheckedSendable(first)
        let otherIsDifferent = Box<Bool>()
        ThreadingFixture.onNewThread {
            let other = try! Realm(configuration: configuration)
            let again = try! Realm(configuration: configuration)
            // Comparing only compares instance identity; it does not touch `box`'s Realm.
            otherIsDifferent.set(other != box.value && other == again)
        }
        #expect(otherIsDifferent.get() == true)
    }
}
