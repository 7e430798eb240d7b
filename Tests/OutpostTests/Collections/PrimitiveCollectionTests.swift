import Foundation
import Outpost
import OutpostTesting
import Testing

final class PCHolder: Object {
    @Persisted var optionalInts: List<Int?>
    @Persisted var optionalIntSet: MutableSet<Int16?>
    @Persisted var optionalIntMap: Map<String, Int32?>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var mixedSet: MutableSet<AnyRealmValue>
    @Persisted var mixedMap: Map<String, AnyRealmValue>
    @Persisted var names: List<String>
    @Persisted var nameSet: MutableSet<String>
    @Persisted var children: List<PCChild>
    @Persisted var childSet: MutableSet<PCChild>
    @Persisted var others: List<PCHolder>
    @Persisted var embedded: List<PCEmbedded>
    @Persisted var wrapped: List<PCWrapper>
    @Persisted var levels: List<PCLevel>
}

final class PCEmbedded: EmbeddedObject {
    @Persisted var value = 0
}

/// A custom persistable type stored as an embedded object (Realm's EmbeddedObjectWrapper).
struct PCWrapper: CustomPersistable, Equatable {
    typealias PersistedType = PCEmbedded
    var value: Int
    init(value: Int) { self.value = value }
    init(persistedValue: PCEmbedded) { value = persistedValue.value }
    var persistableValue: PCEmbedded { PCEmbedded(value: [value]) }
}

enum PCLevel: Int8, PersistableEnum {
    case low = 1, high = 2
}

final class PCChild: Object {
    @Persisted var name = ""
    @Persisted var age: Int8 = 0
    @Persisted(originProperty: "children") var holders: LinkingObjects<PCHolder>
}

/// What Realm's generic collection suites (PrimitiveListTests, PrimitiveMapTests, PrimitiveMutableSetTests,
/// AnyRealmValue…Tests, RealmCollectionTests) expect of collections of values, managed and unmanaged.
@Suite struct PrimitiveCollectionTests {
    let dir = TemporaryDirectory()

    func realm() throws -> Realm {
        try Realm(configuration: dir.configuration(objectTypes: [PCHolder.self, PCChild.self]))
    }

    /// Both forms: an unmanaged holder, and one added to a Realm (left in a write for the caller).
    func holders() throws -> [PCHolder] {
        let realm = try realm()
        realm.beginWrite()
        return [PCHolder(), realm.create(PCHolder.self)]
    }

    /// `average()` read as the optional element type truncates, as Realm's bridge does; it used to read as nil.
    @Test func theAverageOfOptionalIntegersReadsAsTheirType() throws {
        for holder in try holders() {
            holder.optionalInts.append(objectsIn: [nil, 1, 4])
            holder.optionalIntSet.insert(objectsIn: [nil, 1, 4])
            holder.optionalIntMap["a"] = 1
            holder.optionalIntMap["b"] = 4
            holder.optionalIntMap["c"] = .some(nil)
            let list: Int?? = holder.optionalInts.average()
            let set: Int16?? = holder.optionalIntSet.average()
            let map: Int32?? = holder.optionalIntMap.average()
            #expect(list == .some(.some(2)))
            #expect(set == .some(.some(2)))
            #expect(map == .some(.some(2)))
            #expect(holder.optionalInts.average() as Double? == 2.5)
            holder.realm?.cancelWrite()
        }
    }

    /// realm-core adds mixed numbers as a decimal; Realm's unmanaged collections add them as Foundation's `@sum`
    /// does, a double, and answer the integer 0 when empty.
    @Test func sumsAndAveragesOfMixedValuesAreRealms() throws {
        for holder in try holders() {
            let managed = holder.realm != nil
            #expect(holder.mixed.sum() == (managed ? .decimal128(0) : .int(0)))
            #expect(holder.mixedMap.sum() == .int(0))  // realm-core's dictionary answers an integer
            #expect(holder.mixed.average() as AnyRealmValue? == nil)
            holder.mixed.append(objectsIn: [.int(1), .double(2.5), .string("not a number"), .float(0.5)])
            holder.mixedSet.insert(objectsIn: [.int(1), .double(2.5), .string("x")])
            holder.mixedMap["a"] = .int(3)
            holder.mixedMap["b"] = .decimal128(Decimal128(1))
            if managed {
                #expect(holder.mixed.sum() == .decimal128(Decimal128(4)))
                #expect(holder.mixed.average() as AnyRealmValue? == .decimal128(Decimal128(4) / Decimal128(3)))
                #expect(holder.mixedSet.sum() == .decimal128(Decimal128(3.5)))
                #expect(holder.mixedMap.sum() == .decimal128(Decimal128(4)))
                #expect(holder.mixedMap.average() as AnyRealmValue? == .decimal128(Decimal128(2)))
            } else {
                #expect(holder.mixed.sum() == .double(4))
                #expect(holder.mixedSet.sum() == .double(3.5))
                #expect(holder.mixedMap.average() as AnyRealmValue? == .double(2))
            }
            holder.realm?.cancelWrite()
        }
    }

    /// Realm's `List` and `MutableSet` answer `value(forKey:)` with an array of objects (a set's values once each).
    @Test func listsAndSetsAnswerKeyValueReadsWithArrays() throws {
        for holder in try holders() {
            holder.names.append(objectsIn: ["a", "b", "a"])
            holder.nameSet.insert(objectsIn: ["a", "b", "a"])
            holder.children.append(objectsIn: [PCChild(value: ["name": "x"]), PCChild(value: ["name": "y"])])
            let names: [AnyObject] = holder.names.value(forKey: "self")
            #expect(names.compactMap { $0 as? String } == ["a", "b", "a"])
            let setNames: [AnyObject] = holder.nameSet.value(forKey: "self")
            #expect(Set(setNames.compactMap { $0 as? String }) == ["a", "b"])
            #expect(setNames.count == 2)
            let childNames: [AnyObject] = holder.children.value(forKeyPath: "name")
            #expect(childNames.compactMap { $0 as? String } == ["x", "y"])
            holder.realm?.cancelWrite()
        }
    }

    /// Any of Realm's collections is a list's or a set's value: `Results`, `LinkingObjects`, `AnyRealmCollection`.
    @Test func anyRealmCollectionIsAListsValue() throws {
        let realm = try realm()
        try realm.write {
            let first = realm.create(PCHolder.self)
            first.children.append(objectsIn: [PCChild(value: ["name": "x"]), PCChild(value: ["name": "y"])])
            let second = realm.create(PCHolder.self)
            second["children"] = realm.objects(PCChild.self).sorted(byKeyPath: "name", ascending: false)
            #expect(second.children.map(\.name) == ["y", "x"])
            second["childSet"] = AnyRealmCollection(first.children)
            #expect(Set(second.childSet.map(\.name)) == ["x", "y"])
            let holders = first.children.first!.holders
            #expect(holders.count == 2)  // first, and second since its children were set above
            second["others"] = holders
            #expect(Set(second.others.map(\.children.count)) == [2])
            let third = realm.create(PCHolder.self, value: ["children": AnyRealmCollection(first.children)])
            #expect(third.children.map(\.name) == ["x", "y"])
        }
    }

    /// Removing, moving and replacing elements of a managed list of embedded objects, plain or wrapped in a custom
    /// persistable type, keeps the other elements in their places.
    @Test func embeddedListsRemoveMoveAndReplaceInPlace() throws {
        for holder in try holders() {
            holder.embedded.append(objectsIn: [1, 2, 3, 4].map { PCEmbedded(value: [$0]) })
            holder.wrapped.append(objectsIn: [1, 2, 3, 4].map { PCWrapper(value: $0) })
            holder.embedded.remove(at: 0)
            holder.wrapped.remove(at: 0)
            #expect(holder.embedded.map(\.value) == [2, 3, 4])
            #expect(holder.wrapped.map(\.value) == [2, 3, 4])
            holder.embedded.move(from: 2, to: 0)
            holder.wrapped.move(from: 2, to: 0)
            #expect(holder.embedded.map(\.value) == [4, 2, 3])
            #expect(holder.wrapped.map(\.value) == [4, 2, 3])
            holder.wrapped[1] = PCWrapper(value: 9)
            holder.wrapped.swapAt(0, 2)
            #expect(holder.wrapped.map(\.value) == [3, 9, 4])
            holder.wrapped.removeLast()
            #expect(holder.wrapped.map(\.value) == [3, 9])
            holder.realm?.cancelWrite()
        }
    }

    /// An unmanaged list or set aggregates a property of its objects in memory, by name or by key path (Realm's
    /// does; it queries nothing else unmanaged).
    @Test func unmanagedCollectionsAggregateAPropertyOfTheirObjects() throws {
        let holder = PCHolder()
        holder.children.append(objectsIn: [1, 2, 6].map { PCChild(value: ["name": "c\($0)", "age": Int8($0)]) })
        holder.childSet.insert(objectsIn: Array(holder.children))
        #expect(holder.children.min(ofProperty: "age") as Int8? == 1)
        #expect(holder.children.max(of: \.age) == 6)
        #expect(holder.children.sum(ofProperty: "age") as Int == 9)
        #expect(holder.children.average(ofProperty: "age") as Double? == 3)
        #expect(holder.childSet.average(of: \.age) == 3)
        #expect(holder.childSet.sum(of: \.age) == 9)
        #expect(PCHolder().children.average(of: \.age) == nil)
        // Realm's aggregates by name also answer Foundation's boxes.
        #expect(holder.children.max(ofProperty: "age") as NSNumber? == NSNumber(value: 6))
        #expect(holder.children.sum(ofProperty: "age") as NSNumber == NSNumber(value: 9))
        let realm = try realm()
        try realm.write { realm.add(holder) }
        #expect(holder.children.min(ofProperty: "age") as NSNumber? == NSNumber(value: 1))
        #expect(realm.objects(PCChild.self).average(ofProperty: "age") as NSNumber? == NSNumber(value: 3.0))
        #expect(holder.children.sum(ofProperty: "age") as NSNumber == NSNumber(value: 9))
    }

    /// Foundation's `@unionOfObjects` and `@distinctUnionOfObjects`; values that crossed to objects (`NSNumber`,
    /// `NSString`) convert back with `dynamicBridgeCast`, to an enum too.
    @Test func keyValueArrayOperatorsAndBridgedValues() throws {
        for holder in try holders() {
            holder.children.append(objectsIn: ["a", "b", "a"].map { PCChild(value: ["name": $0]) })
            let all = AnyRealmCollection(holder.children)
            #expect(all.value(forKeyPath: "@unionOfObjects.name") as? [String] == ["a", "b", "a"])
            #expect(all.value(forKeyPath: "@distinctUnionOfObjects.name") as? [String] == ["a", "b"])
            holder.levels.append(objectsIn: [.high, .low])
            let raw: [AnyObject] = holder.levels.value(forKey: "self")
            #expect(raw.map { dynamicBridgeCast(fromObjectiveC: $0) as PCLevel } == [.high, .low])
            #expect(dynamicBridgeCast(fromObjectiveC: NSNumber(value: 2)) as PCLevel == .high)
            #expect(dynamicBridgeCast(fromObjectiveC: NSString(string: "x")) as String == "x")
            #expect(dynamicBridgeCast(fromObjectiveC: NSNumber(value: 1.5)) as Double == 1.5)
            holder.realm?.cancelWrite()
        }
    }

    /// `filter(NSPredicate)` and `index(matching: NSPredicate)` take the predicates Linux's Foundation builds.
    @Test func constantNSPredicatesFilter() throws {
        let realm = try realm()
        try realm.write {
            let holder = realm.create(PCHolder.self)
            holder.children.append(objectsIn: ["a", "b"].map { PCChild(value: ["name": $0]) })
            #expect(holder.children.filter(NSPredicate(value: true)).map(\.name) == ["a", "b"])
            #expect(holder.children.filter(NSPredicate(value: false)).isEmpty)
            #expect(realm.objects(PCChild.self).filter(NSPredicate(value: true)).count == 2)
            #expect(holder.children.index(matching: NSPredicate(value: true)) == 0)
        }
    }

    /// A collection of mixed values sorts as realm-core orders them: null, booleans, numbers of any type by value,
    /// strings, data, dates, ObjectIds, UUIDs.
    @Test func mixedValuesSortByKindThenValue() throws {
        let realm = try realm()
        let date = Date(timeIntervalSince1970: 1_000)
        let oid = ObjectId.generate()
        let uuid = UUID()
        let expected: [AnyRealmValue] = [
            .none, .bool(false), .bool(true), .int(-3), .double(1.5), .int(2), .float(2.5), .decimal128(Decimal128(123.456)),
            .int(1 << 60), .string("Apple"), .string("apple"), .data(Data([0])), .data(Data([0, 1])), .date(date),
            .objectId(oid), .uuid(uuid),
        ]
        try realm.write {
            let holder = realm.create(PCHolder.self)
            holder.mixed.append(objectsIn: [
                .uuid(uuid), .string("apple"), .data(Data([0, 1])), .decimal128(Decimal128(123.456)), .int(2), .bool(true),
                .objectId(oid), .double(1.5), .none, .date(date), .int(1 << 60), .string("Apple"), .float(2.5), .int(-3),
                .data(Data([0])), .bool(false),
            ])
            #expect(Array(holder.mixed.sorted()) == expected)
            #expect(Array(holder.mixed.sorted(ascending: false)) == expected.reversed())
        }
    }

    /// An `NSPredicate` Outpost cannot read traps, naming what it takes instead.
    @Test func aBlockPredicateTrapsWithTheReplacement() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let holder = PCHolder()
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration(objectTypes: [PCHolder.self, PCChild.self]))
            try realm.write { realm.add(holder) }
            _ = holder.children.filter(NSPredicate { _, _ in true })
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("on Linux only NSPredicate(value:) can be read; use query text or where { … }"))
        }
    }

    /// A collection operator gives one value, which `List.value(forKeyPath:)` (an array, as Realm's) cannot answer.
    @Test func aListsKeyPathReadOfAnOperatorTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let holder = PCHolder()
            holder.names.append("a")
            _ = holder.names.value(forKeyPath: "@count")
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Key path '@count' gives one value, not one per element: read it through AnyRealmCollection"))
        }
    }

    /// Realm's `AnyRealmValue.object(_:)`: the object if the value holds one of that class.
    @Test func aMixedValueGivesItsObject() throws {
        let child = PCChild(value: ["name": "x"])
        #expect(AnyRealmValue.object(child).object(PCChild.self)?.name == "x")
        #expect(AnyRealmValue.object(child).object(PCHolder.self) == nil)
        #expect(AnyRealmValue.string("x").object(PCChild.self) == nil)
    }
}
