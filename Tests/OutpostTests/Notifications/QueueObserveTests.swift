import Foundation
import Outpost
import OutpostTesting
import Testing

/// Values appended from a delivery queue and read from the test.
final class LockedLog<T>: @unchecked Sendable {  // every access holds the lock
    private let lock = NSLock()
    private var items: [T] = []

    func append(_ item: T) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    var values: [T] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    /// Waits (without a run loop) until `condition` holds for the values, or `timeout` passes.
    func wait(timeout: TimeInterval = 3, until condition: ([T]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(values) && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        return condition(values)
    }
}

@Suite struct QueueObserveTests {
    @Test func resultsAreDeliveredOnTheQueue() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let queue = DispatchQueue(label: "outpost.tests.results-observer")
        let log = LockedLog<Seen>()
        let names = LockedLog<String>()
        let token = f.people().observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .update(let results, _, _, _) = change { names.append(results[0].name) }
            log.append(Seen(change) { $0.count })
        }
        #expect(log.wait { $0.count == 1 })
        #expect(log.values == [.initial(count: 5)])
        try f.realm.write {
            f.realm.add(NPerson(6, "Baby", age: 0))
            f.realm.object(ofType: NPerson.self, forPrimaryKey: 3)!.name = "Three"
        }
        #expect(log.wait { $0.count == 2 })
        #expect(log.values.last == .update(deletions: [], insertions: [0], modifications: [2]))
        #expect(names.values == ["Baby"])
        token.invalidate()
        try f.realm.write { f.realm.add(NPerson(7, "After", age: 70)) }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(log.values.count == 2)
    }

    @Test func objectAndListOnTheQueue() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        let queue = DispatchQueue(label: "outpost.tests.object-observer")
        let objectLog = LockedLog<String>()
        let listLog = LockedLog<Seen>()
        let t1 = ann.observe(on: queue) { (change: ObjectChange<NPerson>) in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .change(let person, let properties) = change {
                objectLog.append("\(person.name): \(properties.map(\.name).joined(separator: ","))")
            }
        }
        let t2 = ann.pets.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            listLog.append(Seen(change) { $0.count })
        }
        defer {
            t1.invalidate()
            t2.invalidate()
        }
        #expect(listLog.wait { $0.count == 1 })
        try f.realm.write {
            ann.name = "Ann"
            ann.pets.append(NPet("Rex"))
        }
        #expect(objectLog.wait { $0.count == 1 })
        #expect(objectLog.values == ["Ann: name,pets"])
        #expect(listLog.wait { $0.count == 2 })
        #expect(listLog.values.last == .update(deletions: [], insertions: [0], modifications: []))
    }
}
