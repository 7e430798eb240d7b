import Foundation
import Outpost
import OutpostTesting
import Testing

final class KVCPet: Object {
    @Persisted var name: String
    @Persisted var age: Int8
    @Persisted var nickname: String?
    @Persisted var weight: Double
    @Persisted var buddy: KVCPet?
    @Persisted var toys: List<String>
}

/// Realm's key-value coding: `object["property"]` on objects, `value(forKey:)`, `value(forKeyPath:)` (with collection
/// operators) and `setValue(_:forKey:)` on collections.
@Suite struct KeyValueCodingTests {
    let dir = TemporaryDirectory()

    @Test func objectSubscriptReadsAndWritesUnmanagedObjects() {
        let pet = KVCPet()
        #expect(pet["name"] as? String == "")
        #expect(pet["nickname"] == nil)
        pet["name"] = "Rex"
        pet["age"] = 3
        pet["nickname"] = "R"
        #expect(pet.name == "Rex" && pet.age == 3 && pet.nickname == "R")
        #expect(pet["age"] as? Int8 == 3)  // the property's own type
        pet["nickname"] = nil
        #expect(pet.nickname == nil)
        // A collection read this way is the object's own.
        (pet["toys"] as? List<String>)?.append("ball")
        #expect(Array(pet.toys) == ["ball"])
        pet["toys"] = ["a", "b"]
        #expect(Array(pet.toys) == ["a", "b"])
    }

    @Test func objectSubscriptReadsAndWritesManagedObjects() throws {
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [KVCPet.self]))
        let pet = KVCPet()
        try realm.write { realm.add(pet) }
        try realm.write {
            pet["name"] = "Ace"
            pet["age"] = Int8(5)
            pet["buddy"] = ["name": "Bo"]
            pet["toys"] = ["rope"]
        }
        #expect(pet.name == "Ace" && pet.age == 5)
        #expect((pet["buddy"] as? KVCPet)?.name == "Bo")
        #expect((pet["toys"] as? List<String>).map(Array.init) == ["rope"])
        #expect(realm.objects(KVCPet.self).count == 2)
    }

    @Test func collectionsReadAndSetAPropertyOfEveryElement() throws {
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [KVCPet.self]))
        try realm.write {
            for (name, age, weight) in [("a", 1, 2.0), ("b", 2, 4.0), ("c", 6, 9.0)] {
                realm.create(KVCPet.self, value: ["name": name, "age": Int8(age), "weight": weight])
            }
        }
        let pets = realm.objects(KVCPet.self)
        #expect(pets.value(forKey: "name") as? [String] == ["a", "b", "c"])
        #expect((pets.value(forKey: "nickname") as? [Any])?.allSatisfy { $0 is NSNull } == true)
        #expect(pets.value(forKeyPath: "@count") as? Int == 3)
        #expect(pets.value(forKeyPath: "@sum.age") as? Int == 9)
        #expect(pets.value(forKeyPath: "@max.weight") as? Double == 9)
        #expect(pets.value(forKeyPath: "@min.age") as? Int == 1)
        #expect(pets.value(forKeyPath: "@avg.weight") as? Double == 5)
        #expect(pets.value(forKeyPath: "@min.name") == nil)  // strings have no minimum here
        try realm.write { pets.first!.buddy = pets.last! }
        #expect((pets.value(forKeyPath: "buddy.name") as? [Any])?.first as? String == "c")
        try realm.write { pets.setValue("same", forKey: "nickname") }
        #expect(Set(pets.map { $0.nickname ?? "" }) == ["same"])
        let toys = pets.first!.toys
        try realm.write { toys.append(objectsIn: ["x", "y"]) }
        #expect(toys.value(forKey: "self") as? [String] == ["x", "y"])
        try realm.write { toys.setValue("z", forKey: "self") }
        #expect(Array(toys) == ["z", "z"])
    }

    @Test func settingAManagedObjectOutsideAWriteTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration(objectTypes: [KVCPet.self]))
            let pet = KVCPet()
            try realm.write { realm.add(pet) }
            pet["buddy"] = ["name": "never inserted"]
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Attempting to modify object outside of a write transaction"))
        }
    }

    @Test func anUnknownPropertyNameTrapsWithRealmsText() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = KVCPet()["noSuchProperty"]
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Invalid property name 'noSuchProperty' for class 'KVCPet'."))
        }
    }
}
