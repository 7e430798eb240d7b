import Foundation
import Outpost
import OutpostTesting
import Testing

/// The models and local queries of the two documentation pages Outpost implements.
@Suite struct SeedPageModelTests {
    @Test func itemsWithComplexityAtMostFour() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var configuration = dir.configuration()
        configuration.objectTypes = [Item.self]
        let realm = try Realm(configuration: configuration)
        for (name, complexity) in [("Learn Realm CRUD stuff", 3), ("Fix the bug with the failing method", 7),
                                   ("Write code that generates a permission error", 1)] {
            let item = Item()
            item.ownerId = "user"
            item.itemName = name
            item.complexity = complexity
            try realm.write { realm.add(item) }
        }
        let simple = realm.objects(Item.self).where { $0.complexity <= 4 }
        #expect(Set(simple.map(\.itemName)) == ["Learn Realm CRUD stuff", "Write code that generates a permission error"])
        #expect(simple.count == realm.objects(Item.self).filter("complexity <= 4").count)
    }

    @Test func eventPagePersonReadAndRename() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write { realm.add(Person(name: "Anthony", employeeId: 2)) }
        let person = realm.objects(Person.self).first!
        #expect(person.name == "Anthony")
        try! realm.write {
            // Change name from "Anthony" to "Tony"
            person.name = "Tony"
        }
        try realm.write { person.userId = "tony.stark@starkindustries.com" }
        #expect(realm.objects(Person.self).filter("name == 'Tony' AND employeeId == 2").count == 1)
        #expect(person.userId == "tony.stark@starkindustries.com")
    }
}
