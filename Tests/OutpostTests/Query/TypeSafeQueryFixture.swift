import Foundation
import Outpost
import OutpostTesting

/// Three owners with dogs, tags, scores, prices, addresses and moods, for the type-safe query tests.
///
/// | id | name   | nickname | age | dogs (age)        | tags | scores  | prices                | city   | mood   | flag  | weight |
/// |----|--------|----------|-----|-------------------|------|---------|-----------------------|--------|--------|-------|--------|
/// | 1  | Ann    | A        | 30  | Rex 3, Fido 5     | a, b | 1, 2, 3 | eur 1.5, usd 2.0      | Lisbon | grumpy | true  | 70     |
/// | 2  | Bob    | nil      | 20  | Spot 1            | c    | 5, 9    | gbp 0.5               | Porto  | happy  | false | nil    |
/// | 3  | Céline | cel      | 45  |                   |      |         |                       | nil    | happy  | true  | nil    |
struct QueryFixture {
    let dir = TemporaryDirectory()
    let realm: Realm
    let rex: Dog

    init() throws {
        realm = try Realm(configuration: dir.configuration())
        func dog(_ name: String, _ age: Int) -> Dog {
            let d = Dog()
            d.name = name
            d.age = age
            return d
        }
        let ann = Owner()
        ann.id = 1
        ann.name = "Ann"
        ann.nickname = "A"
        ann.age = 30
        let rex = dog("Rex", 3)
        ann.dogs.append(objectsIn: [rex, dog("Fido", 5)])
        ann.favorite = rex
        ann.tags.insert(objectsIn: ["a", "b"])
        ann.scores.append(objectsIn: [1, 2, 3])
        ann.prices["eur"] = 1.5
        ann.prices["usd"] = 2.0
        let lisbon = Address()
        lisbon.city = "Lisbon"
        ann.address = lisbon
        ann.mood = .grumpy
        ann.flag = true
        ann.weight = 70

        let bob = Owner()
        bob.id = 2
        bob.name = "Bob"
        bob.age = 20
        bob.dogs.append(dog("Spot", 1))
        bob.tags.insert("c")
        bob.scores.append(objectsIn: [5, 9])
        bob.prices["gbp"] = 0.5
        let porto = Address()
        porto.city = "Porto"
        bob.address = porto

        let celine = Owner()
        celine.id = 3
        celine.name = "Céline"
        celine.nickname = "cel"
        celine.age = 45
        celine.flag = true

        let tasks = [(1, QBLevel.low, QBLevel?.none), (2, .medium, .high), (3, .high, .low)].map { id, level, optional in
            let task = QBTask()
            task.id = id
            task.level = level
            task.optionalLevel = optional
            task.mood = [QBMood.calm, .angry, .happy][id - 1]
            return task
        }
        let realm = self.realm
        try realm.write {
            realm.add([ann, bob, celine])
            realm.add(tasks)
        }
        self.rex = realm.objects(Dog.self).filter("name == 'Rex'").first!
    }

    func remove() { dir.remove() }
}
