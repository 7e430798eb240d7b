import Foundation
import Outpost
import OutpostTesting
import Testing

@Suite struct ResultsObserveTests {
    /// Observes `results`, recording every change.
    final class Recorder {
        var seen: [Seen] = []
        var token: NotificationToken?

        init(_ results: Results<NPerson>, keyPaths: [String]? = nil) {
            token = results.observe(keyPaths: keyPaths) { [unowned self] change in
                seen.append(Seen(change) { $0.count })
            }
        }

        var updates: [Seen] { seen.filter { if case .update = $0 { true } else { false } } }

        func waitForInitial() -> Bool { spinRunLoop { !seen.isEmpty } }
        /// Waits until `n` updates arrived (and a little longer, to catch extra ones).
        func waitForUpdates(_ n: Int) -> Bool {
            let ok = spinRunLoop { updates.count >= n }
            spinRunLoop(timeout: 0.05) { false }
            return ok && updates.count == n
        }
    }

    @Test func initialIsDeliveredAsynchronously() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let recorder = Recorder(f.people())
        #expect(recorder.seen.isEmpty)
        #expect(recorder.waitForInitial())
        #expect(recorder.seen == [.initial(count: 5)])
    }

    @Test func localCommitIsDeliveredOnTheNextRunLoopTurn() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let recorder = Recorder(f.people())
        #expect(recorder.waitForInitial())
        try f.realm.write { f.realm.add(NPerson(6, "P6", age: 25)) }
        #expect(recorder.updates.isEmpty)
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates == [.update(deletions: [], insertions: [2], modifications: [])])
    }

    @Test func deletionsUseOldIndicesAndModificationsOldIndices() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let people = f.people()
        let recorder = Recorder(people)
        #expect(recorder.waitForInitial())
        try f.realm.write {
            let p2 = people[1]
            let p4 = people[3]
            let p5 = people[4]
            f.realm.delete(p2)
            f.realm.delete(p4)
            p5.name = "Five"  // old index 4, new index 2
            f.realm.add(NPerson(7, "Young", age: 1))  // new index 0
        }
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates == [.update(deletions: [1, 3], insertions: [0], modifications: [4])])
    }

    @Test func filteredResultsReportObjectsEnteringAndLeaving() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let adults = f.realm.objects(NPerson.self).filter("age >= 30").sorted(byKeyPath: "id")
        let recorder = Recorder(adults)
        #expect(recorder.waitForInitial())
        #expect(recorder.seen == [.initial(count: 3)])  // ids 3, 4, 5
        try f.realm.write {
            f.realm.object(ofType: NPerson.self, forPrimaryKey: 4)!.age = 5  // leaves (old index 1)
            f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!.age = 99  // enters (new index 0)
            f.realm.object(ofType: NPerson.self, forPrimaryKey: 2)!.name = "ignored"  // not in the results
        }
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates == [.update(deletions: [1], insertions: [0], modifications: [])])
    }

    @Test func sortedResultsReportMovesAsDeletionAndInsertion() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let recorder = Recorder(f.people())
        #expect(recorder.waitForInitial())
        try f.realm.write { f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!.age = 45 }  // 0 → 3
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates == [.update(deletions: [0], insertions: [3], modifications: [])])
    }

    @Test func keyPathsLimitModifications() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let people = f.people()
        let recorder = Recorder(people, keyPaths: ["name"])
        #expect(recorder.waitForInitial())
        try f.realm.write { people[0].pet!.name = "Rex" }  // linked, but not watched
        try f.realm.write { people[1].age = 21 }  // not watched, stays in place
        #expect(recorder.waitForUpdates(0))
        try f.realm.write { people[2].name = "Carol" }
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates == [.update(deletions: [], insertions: [], modifications: [2])])
    }

    @Test func linkedKeyPathsReportChangesOfLinkedObjects() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let people = f.people()
        let recorder = Recorder(people, keyPaths: ["pet.name"])
        #expect(recorder.waitForInitial())
        try f.realm.write { people[0].pet!.age = 7 }  // pet.age is not watched
        #expect(recorder.waitForUpdates(0))
        try f.realm.write { people[3].pet!.name = "Rex" }
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates == [.update(deletions: [], insertions: [], modifications: [3])])
    }

    @Test func withoutKeyPathsLinkedObjectsCount() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let people = f.people()
        let recorder = Recorder(people)
        #expect(recorder.waitForInitial())
        try f.realm.write { people[1].pet!.age = 7 }
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates == [.update(deletions: [], insertions: [], modifications: [1])])
        // A pet nobody in the results links to changes nothing relevant.
        try f.realm.write { f.realm.add(NPet("stray")) }
        try f.realm.write { f.realm.objects(NPet.self).filter("name == 'stray'").first!.age = 3 }
        #expect(recorder.waitForUpdates(1))
    }

    @Test func writeWithoutNotifyingSkipsThatObserver() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let skipped = Recorder(f.people())
        let other = Recorder(f.people())
        #expect(skipped.waitForInitial() && other.waitForInitial())
        try f.realm.write(withoutNotifying: [skipped.token!]) { f.realm.add(NPerson(6, "P6", age: 60)) }
        #expect(other.waitForUpdates(1))
        #expect(skipped.updates.isEmpty)
        try f.realm.write { f.realm.add(NPerson(7, "P7", age: 70)) }
        #expect(skipped.waitForUpdates(1))
        // The skipped commit is not reported later either.
        #expect(skipped.updates == [.update(deletions: [], insertions: [6], modifications: [])])
    }

    @Test func invalidateStopsAScheduledDelivery() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let recorder = Recorder(f.people())
        #expect(recorder.waitForInitial())
        try f.realm.write { f.realm.add(NPerson(6, "P6", age: 60)) }
        recorder.token!.invalidate()  // the delivery is already scheduled
        #expect(recorder.waitForUpdates(0))
    }

    @Test func invalidateBeforeTheInitialDelivery() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        let recorder = Recorder(f.people())
        recorder.token!.invalidate()
        spinRunLoop(timeout: 0.1) { false }
        #expect(recorder.seen.isEmpty)
    }

    @Test func commitOnAnotherThreadIsDeliveredAfterAutorefresh() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let people = f.people()
        let recorder = Recorder(people)
        #expect(recorder.waitForInitial())
        let configuration = f.configuration
        let done = DispatchSemaphore(value: 0)
        Thread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                realm.delete(realm.object(ofType: NPerson.self, forPrimaryKey: 2)!)
                realm.object(ofType: NPerson.self, forPrimaryKey: 4)!.name = "Four"
                realm.add(NPerson(9, "P9", age: 99))
            }
            done.signal()
        }.start()
        done.wait()
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates == [.update(deletions: [1], insertions: [4], modifications: [3])])
        #expect(people.count == 5)
        #expect(people[2].name == "Four")
    }
}
