import Foundation
import Outpost
import OutpostTesting
import Testing

final class MQDog: Object {
    @Persisted var name: String
    @Persisted var age: Int
}

final class MQKennel: Object {
    @Persisted var dogs: Map<String, MQDog?>
    @Persisted var weights: Map<String, Double>
    @Persisted var counts: Map<String, Int?>
}

/// Realm's `RealmKeyedCollection` members on `Map`: queries and sorts answer the values, aggregates take the values
/// (or a property of the object values), key-value coding reads and writes by key.
@Suite struct MapQueryTests {
    let dir = TemporaryDirectory()

    func seeded() throws -> (Realm, MQKennel) {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [MQDog.self, MQKennel.self]))
        let kennel = MQKennel()
        try realm.write {
            realm.add(kennel)
            for (key, name, age) in [("a", "rex", 5), ("b", "bo", 2), ("c", "ace", 9)] {
                kennel.dogs[key] = realm.create(MQDog.self, value: ["name": name, "age": age])
            }
            kennel.weights.merge([(key: "x", value: 2.5), (key: "y", value: 0.5), (key: "z", value: 4.0)]) { $1 }
            kennel.counts.merge([(key: "p", value: 3), (key: "q", value: nil), (key: "r", value: 1)]) { $1 }
        }
        return (realm, kennel)
    }

    @Test func queriesAndSortsAnswerTheValues() throws {
        defer { dir.remove() }
        let (_, kennel) = try seeded()
        #expect(kennel.dogs.filter("age > 3").compactMap { $0?.name }.sorted() == ["ace", "rex"])
        #expect(kennel.dogs.sorted(byKeyPath: "age").compactMap { $0?.name } == ["bo", "rex", "ace"])
        #expect(kennel.dogs.sorted(by: \.name, ascending: false).compactMap { $0?.name } == ["rex", "bo", "ace"])
        #expect(kennel.dogs.sorted(by: [SortDescriptor(keyPath: "name")]).compactMap { $0?.name } == ["ace", "bo", "rex"])
        #expect(Array(kennel.weights.sorted()) == [0.5, 2.5, 4.0])
        #expect(Array(kennel.weights.sorted(ascending: false)) == [4.0, 2.5, 0.5])
        #expect(kennel.dogs.contains { key, dog in key == "b" && dog?.name == "bo" })
        #expect(!kennel.dogs.contains { _, dog in dog?.age == 100 })
        #expect(kennel.weights.asKeyValueSequence().map(\.key) == ["x", "y", "z"])
    }

    /// Iterating a map yields `SingleMapEntry` values in key order, as in Realm (`entry.key`, `entry.value`);
    /// `asKeyValueSequence()` yields tuples; generic code can take any map entry through `_RealmMapValue`.
    @Test func iterationYieldsSingleMapEntries() throws {
        defer { dir.remove() }
        let (realm, kennel) = try seeded()
        var seen: [String] = []
        for entry in kennel.weights { seen.append("\(entry.key)=\(entry.value)") }
        #expect(seen == ["x=2.5", "y=0.5", "z=4.0"])
        #expect(kennel.dogs.map { $0.value?.name } == ["rex", "bo", "ace"])
        var pairs: [String] = []
        for (key, value) in kennel.weights.asKeyValueSequence() { pairs.append("\(key):\(value)") }
        #expect(pairs == ["x:2.5", "y:0.5", "z:4.0"])
        func valueTypes<M: Sequence>(_ map: M) -> String where M.Element: _RealmMapValue {
            "\(M.Element.Key.self) -> \(M.Element.Value.self)"
        }
        #expect(valueTypes(kennel.counts) == "String -> Optional<Int>")
        let entries = Array(kennel.weights)
        #expect(Set(entries).count == 3 && entries[0] == entries[0] && entries[0] != entries[1])
        #expect(MapIndex(offset: 2).offset == 2)
        // The iteration is a snapshot: removing entries while iterating sees each entry once.
        var visited = 0
        try realm.write {
            for entry in kennel.weights {
                kennel.weights.removeObject(for: entry.key)
                visited += 1
            }
        }
        #expect(visited == 3 && kennel.weights.count == 0)
        let unmanaged = Map<String, Int>()
        unmanaged["b"] = 2
        unmanaged["a"] = 1
        #expect(unmanaged.map(\.key) == ["a", "b"])
    }

    @Test func aggregatesTakeTheValuesOrAPropertyOfThem() throws {
        defer { dir.remove() }
        let (_, kennel) = try seeded()
        #expect(kennel.weights.min() == 0.5 && kennel.weights.max() == 4.0 && kennel.weights.sum() == 7.0)
        let mean: Double? = kennel.weights.average()
        #expect(mean == 7.0 / 3)
        #expect(kennel.counts.min() == 1 && kennel.counts.max() == 3 && kennel.counts.sum() == 4)  // nil left out
        #expect(kennel.dogs.min(ofProperty: "age") == 2 && kennel.dogs.max(ofProperty: "age") == 9)
        #expect(kennel.dogs.sum(ofProperty: "age") == 16)
        #expect(kennel.dogs.min(of: \.age) == 2 && kennel.dogs.sum(of: \.age) == 16)
        #expect(kennel.dogs.average(of: \.age) == 5)  // an `Int` property's average as an `Int`, as in Realm
        let ages: Double? = kennel.dogs.average(ofProperty: "age")
        #expect(ages.map { abs($0 - 16.0 / 3) < 1e-9 } == true)
        let unmanaged = Map<String, Int>()
        unmanaged["one"] = 1
        unmanaged["two"] = 2
        #expect(unmanaged.max() == 2 && unmanaged.sum() == 3)
    }

    @Test func keyValueCodingReadsAndWritesByKey() throws {
        defer { dir.remove() }
        let (realm, kennel) = try seeded()
        #expect(kennel.weights.value(forKey: "x") as? Double == 2.5)
        #expect(kennel.weights.value(forKey: "missing") == nil)
        #expect(kennel.counts.value(forKey: "q") is NSNull)  // present, holding nil (absent keys give nil)
        #expect(kennel.counts.object(forKey: "p" as AnyObject) as? Int == 3)
        #expect(kennel.dogs.value(forKeyPath: "a.name") as? String == "rex")
        try realm.write {
            kennel.weights.setValue(9.5, forKey: "w")
            kennel.weights.setValue(nil, forKey: "x")
            kennel.weights.updateValue(1.0, forKey: "y")
        }
        #expect(kennel.weights.keys.sorted() == ["w", "y", "z"])
        // Realm's generic tests read key-value coding results back through `dynamicBridgeCast`.
        #expect(dynamicBridgeCast(fromObjectiveC: kennel.weights.value(forKey: "w")!) as Double == 9.5)
        #expect(dynamicBridgeCast(fromObjectiveC: NSNull()) as Int? == nil)
        #expect(dynamicBridgeCast(fromObjectiveC: 7) as Int8 == 7)
        #expect(dynamicBridgeCast(fromObjectiveC: 7) as Double? == 7.0)
        #expect(dynamicBridgeCast(fromSwift: "a") as? String == "a")
        #expect(kennel.weights["y"] == 1.0 && kennel.weights["w"] == 9.5)
    }
}
