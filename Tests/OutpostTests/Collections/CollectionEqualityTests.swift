import Foundation
import Outpost
import OutpostTesting
import Testing

/// Realm's equality of collections (the same collection, not equal elements) and their `Codable` forms.
@Suite struct CollectionEqualityTests {
    let dir = TemporaryDirectory()

    @Test func collectionsAreEqualWhenTheyAreTheSameCollection() throws {
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: ThreadingFixture.types))
        let a = TSPerson(id: 1, name: "a")
        let b = TSPerson(id: 2, name: "b")
        try realm.write {
            realm.add([a, b])
            a.dogs.append(TSDog())
            b.dogs.append(TSDog())
        }
        #expect(a.dogs == a.dogs)  // the same property of the same object
        #expect(a.dogs != b.dogs)
        #expect(a.tags == a.tags && a.tags != b.tags)
        #expect(a.scores == a.scores && a.scores != b.scores)
        let results = realm.objects(TSPerson.self)
        let copy = results
        #expect(results == copy)
        #expect(realm.objects(TSPerson.self) != realm.objects(TSPerson.self))
        let owners = a.dogs[0].owners
        #expect(owners == owners)
        #expect(a.dogs[0].owners != a.dogs[0].owners)
        let any = AnyRealmCollection(results)
        #expect(any == any)
        #expect(AnyRealmCollection(a.dogs) == AnyRealmCollection(a.dogs))
        #expect(AnyRealmCollection(realm.objects(TSPerson.self)) != AnyRealmCollection(realm.objects(TSPerson.self)))
        // Unmanaged collections compare their elements, as Realm's (a list in order, a set and a map as such).
        let loose = List<Int>()
        #expect(loose == loose && loose == List<Int>())
        loose.append(objectsIn: [1, 2])
        let same = List<Int>(), reversed = List<Int>()
        same.append(objectsIn: [1, 2])
        reversed.append(objectsIn: [2, 1])
        #expect(loose == same && loose != reversed)
        let setA = MutableSet<String>(), setB = MutableSet<String>()
        setA.insert(objectsIn: ["x", "y"])
        setB.insert(objectsIn: ["y", "x"])
        #expect(setA == setB)
        let mapA = Map<String, Int>(), mapB = Map<String, Int>()
        mapA["k"] = 1
        #expect(mapA != mapB)
        mapB["k"] = 1
        #expect(mapA == mapB)
        #expect(a.dogs != List<TSDog>())  // a managed list never equals an unmanaged one
    }

    @Test func collectionsEncodeAndDecodeAsArraysAndObjects() throws {
        defer { dir.remove() }
        let list = List<Int>()
        list.append(objectsIn: [3, 1, 2])
        #expect(String(decoding: try JSONEncoder().encode(list), as: UTF8.self) == "[3,1,2]")
        let decoded = try JSONDecoder().decode(List<String>.self, from: Data(#"["a","b"]"#.utf8))
        #expect(Array(decoded) == ["a", "b"])
        let set = try JSONDecoder().decode(MutableSet<Int>.self, from: Data("[1,1,2]".utf8))
        #expect(set.count == 2)
        let map = try JSONDecoder().decode(Map<String, Int>.self, from: Data(#"{"x":1,"y":2}"#.utf8))
        #expect(map["x"] == 1 && map["y"] == 2)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(map), as: UTF8.self) == #"{"x":1,"y":2}"#)

        let realm = try Realm(configuration: dir.configuration(objectTypes: ThreadingFixture.types))
        let person = TSPerson(id: 1, name: "a")
        person.tags.insert("t")
        try realm.write { realm.add(person) }
        #expect(String(decoding: try JSONEncoder().encode(realm.objects(TSPerson.self).map(\.name)), as: UTF8.self) == #"["a"]"#)
        #expect(String(decoding: try JSONEncoder().encode(person.tags), as: UTF8.self) == #"["t"]"#)
    }
}
