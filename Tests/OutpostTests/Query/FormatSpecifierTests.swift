import Foundation
import Outpost
import OutpostTesting
import Testing

/// `filter` with Realm's other format specifiers: `%d`-style values and `%K` key paths, on results and lists.
@Suite struct FormatSpecifierTests {
    let dir = TemporaryDirectory()

    @Test func numberSpecifiersAndKeyPaths() throws {
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [Dog.self, Owner.self, Address.self]))
        let owner = Owner()
        owner.id = 1
        owner.name = "ann"
        for (name, age) in [("rex", 3), ("fido", 7), ("max", 11)] {
            let dog = Dog()
            dog.name = name
            dog.age = age
            owner.dogs.append(dog)
        }
        try realm.write { realm.add(owner) }
        let dogs = realm.objects(Dog.self)
        #expect(dogs.filter("age = %d", 7).map(\.name) == ["fido"])
        #expect(dogs.filter("age > %ld AND age < %lld", Int64(3), 11).map(\.name) == ["fido"])
        #expect(dogs.filter("age >= %f", 6.5).count == 2)
        #expect(dogs.filter("%K == %@", "name", "max").map(\.name) == ["max"])
        #expect(dogs.filter("%K > %d AND name != %@", "age", 5, "max").map(\.name) == ["fido"])
        #expect(owner.dogs.filter("%K < %d", "age", 5).map(\.name) == ["rex"])
        #expect(owner.dogs.index(matching: "%K == %@", "name", "max") == 2)
        #expect(realm.objects(Owner.self).filter("%K.@count == %d", "dogs", 3).count == 1)
        #expect(throws: QueryError.self) { try dogs.filter(checked: "%K == 1", [7]) }
    }
}
