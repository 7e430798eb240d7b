import Foundation
import Outpost
import OutpostTesting

// Models for the notification tests (class names unique in the test target).
final class NPet: Object {
    @Persisted var name: String
    @Persisted var age: Int

    convenience init(_ name: String, age: Int = 1) {
        self.init()
        self.name = name
        self.age = age
    }
}

final class NPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var pet: NPet?
    @Persisted var pets: List<NPet>
    @Persisted var scores: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var petsByName: Map<String, NPet?>
    @Persisted var prices: Map<String, Int>

    convenience init(_ id: Int, _ name: String, age: Int) {
        self.init()
        self.id = id
        self.name = name
        self.age = age
    }
}

/// A change reported to a collection observer, as plain values (the collection left out).
enum Seen: Equatable {
    case initial(count: Int)
    case update(deletions: [Int], insertions: [Int], modifications: [Int])
    case error

    init<C>(_ change: RealmCollectionChange<C>, count: (C) -> Int) {
        switch change {
        case .initial(let c): self = .initial(count: count(c))
        case .update(_, let d, let i, let m): self = .update(deletions: d, insertions: i, modifications: m)
        case .error: self = .error
        }
    }
}

/// A fresh Realm with the notification models in a temporary directory.
struct NotificationFixture {
    let directory = TemporaryDirectoryRef()
    let configuration: Realm.Configuration
    let realm: Realm

    init(_ name: String = #function) throws {
        configuration = directory.value.configuration(objectTypes: [NPet.self, NPerson.self])
        realm = try Realm(configuration: configuration)
    }

    /// Five people aged 10, 20, 30, 40, 50 (ids 1…5), each with a pet.
    func addPeople() throws {
        try realm.write {
            for i in 1...5 {
                let person = NPerson(i, "P\(i)", age: i * 10)
                person.pet = NPet("pet\(i)")
                realm.add(person)
            }
        }
    }

    func people() -> Results<NPerson> {
        realm.objects(NPerson.self).sorted(byKeyPath: "age")
    }

    func remove() { directory.value.remove() }
}

/// Holds the temporary directory (a class, so the fixture can be a `let`).
final class TemporaryDirectoryRef {
    let value = TemporaryDirectory()
}
