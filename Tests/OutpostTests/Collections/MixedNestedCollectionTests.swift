import Foundation
import Outpost
import OutpostTesting
import Testing

final class MixedHolder: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
    @Persisted var byKey: Map<String, AnyRealmValue>
}

/// Lists and dictionaries nested in `AnyRealmValue` (Realm's `.list(List)` / `.dictionary(Map)`): unmanaged they hold
/// their values; read from a managed object they are live, and changing them writes the object, at any depth.
@Suite struct MixedNestedCollectionTests {
    let dir = TemporaryDirectory()

    func realm() throws -> Realm { try Realm(configuration: dir.configuration(objectTypes: [MixedHolder.self])) }

    @Test func unmanagedNestedCollectionsHoldTheirValues() {
        let holder = MixedHolder()
        holder.value = .fromArray([.string("a"), .int(1)])
        #expect(holder.value.listValue?[0] == .string("a"))
        holder.value.listValue?[1] = .bool(true)
        holder.value.listValue?.append(.fromDictionary(["k": .double(2.5)]))
        #expect(holder.value.listValue?.count == 3)
        #expect(holder.value.listValue?[1] == .bool(true))
        #expect(holder.value.listValue?[2].dictionaryValue?["k"] == .double(2.5))
        #expect(holder.value.dictionaryValue == nil)
        // Unmanaged nested collections compare their elements, as Realm's unmanaged collections do.
        let value = AnyRealmValue.fromArray([])
        #expect(value == value)
        #expect(AnyRealmValue.fromArray([]) == AnyRealmValue.fromArray([]))
        #expect(AnyRealmValue.fromArray([.int(1)]) != AnyRealmValue.fromArray([.int(2)]))
    }

    @Test func managedNestedCollectionsAreLiveAtAnyDepth() throws {
        defer { dir.remove() }
        let realm = try realm()
        let holder = MixedHolder()
        holder.value = .fromDictionary(["list": .fromArray([.int(1), .fromDictionary(["deep": .string("x")])]),
                                        "flag": .bool(false)])
        try realm.write { realm.add(holder) }
        let list = try #require(holder.value.dictionaryValue?["list"]?.listValue)
        #expect(list.count == 2)
        #expect(list.realm != nil)
        try realm.write {
            list.append(.string("appended"))
            list[1].dictionaryValue?["deep"] = .string("changed")
            holder.value.dictionaryValue?["flag"] = nil
        }
        #expect(holder.value.dictionaryValue?.keys == ["list"])
        #expect(holder.value.dictionaryValue?["list"]?.listValue?.count == 3)
        #expect(holder.value.dictionaryValue?["list"]?.listValue?[2] == .string("appended"))

        // What was written is in the file: another Realm on it reads the same.
        let again = try Realm(configuration: dir.configuration(objectTypes: [MixedHolder.self]))
        let read = try #require(again.object(ofType: MixedHolder.self, forPrimaryKey: 0))
        #expect(read.value.dictionaryValue?["list"]?.listValue?[1].dictionaryValue?["deep"] == .string("changed"))
        #expect(read.value.dictionaryValue?["list"]?.listValue?[0] == .int(1))
        // Two reads of one nested collection are the same collection.
        #expect(read.value.dictionaryValue?["list"] == read.value.dictionaryValue?["list"])
    }

    @Test func collectionsInListAndMapPropertiesAreLive() throws {
        defer { dir.remove() }
        let realm = try realm()
        let holder = try realm.write {
            realm.create(MixedHolder.self, value: ["id": 1, "values": [["a": 1]], "byKey": ["k": [1, 2]]])
        }
        #expect(holder.values[0].dictionaryValue?["a"] == .int(1))
        #expect(holder.byKey["k"]?.listValue?.count == 2)
        try realm.write {
            holder.values[0].dictionaryValue?["b"] = .string("two")
            holder.byKey["k"]?.listValue?.remove(at: 0)
        }
        #expect(holder.values[0].dictionaryValue?["b"] == .string("two"))
        #expect(holder.byKey["k"]?.listValue.map(Array.init) == [.int(2)])
    }

    @Test func aReplacedValueLeavesTheOldCollectionEmpty() throws {
        defer { dir.remove() }
        let realm = try realm()
        let holder = MixedHolder()
        holder.value = .fromArray([.int(1)])
        try realm.write { realm.add(holder) }
        let old = try #require(holder.value.listValue)
        try realm.write { holder.value = .string("no longer a list") }
        #expect(old.count == 0)
        #expect(holder.value == .string("no longer a list"))
    }
}
