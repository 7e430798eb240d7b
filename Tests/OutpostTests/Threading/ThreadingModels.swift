import Foundation
import Outpost
import OutpostTesting

final class TSPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var dogs: List<TSDog>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>

    convenience init(id: Int, name: String) {
        self.init()
        self.id = id
        self.name = name
    }
}

final class TSDog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<TSPerson>
}

final class TSCounter: Object {
    @Persisted(primaryKey: true) var id: String
    @Persisted var value: Int
}

/// Carries a value to another thread in a test. Unchecked: the tests only send frozen values (which
/// lock internally), thread-safe references, or values the sending thread no longer touches.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

enum ThreadingFixture {
    static let types: [ObjectBase.Type] = [TSPerson.self, TSDog.self, TSCounter.self]

    static func configuration(_ dir: TemporaryDirectory, _ name: String = "test.realm") -> Realm.Configuration {
        dir.configuration(name, objectTypes: types)
    }

    /// Runs `body` on a new thread and waits for it.
    static func onNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }

    /// Adds people 1...count, each with `dogsEach` dogs, a tag and a score.
    static func seed(_ realm: Realm, count: Int, dogsEach: Int = 2) throws {
        try realm.write {
            for i in 1...count {
                let person = TSPerson(id: i, name: "p\(i)")
                for d in 0..<dogsEach {
                    let dog = TSDog()
                    dog.name = "d\(i)-\(d)"
                    dog.age = d
                    person.dogs.append(dog)
                }
                person.tags.insert("t\(i % 3)")
                person.scores["s"] = i
                realm.add(person)
            }
        }
    }
}
