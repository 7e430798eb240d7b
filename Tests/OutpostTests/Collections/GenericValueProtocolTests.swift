import Foundation
import Outpost
import OutpostTesting
import Testing

/// Realm's generic value protocols (`RealmCollectionValue` with its `PersistedType`, `_RealmCollectionValueInsideOptional`,
/// `OptionalProtocol`, `MinMaxType`/`AddableType`/`SortableType`, `PersistableEnum`'s order), used the way generic
/// Realm code uses them: one test function per capability, written once over `V` and run for many value types.
@Suite struct GenericValueProtocolTests {
    let dir = TemporaryDirectory()

    func realm() throws -> Realm {
        try Realm(configuration: dir.configuration(objectTypes: [GVHolder.self]))
    }

    /// Appends `V`'s samples in reverse to the holder's list for `V`, in a write, and returns the list.
    func filledList<V: GVSample>(_ realm: Realm, _ keyPath: KeyPath<GVHolder, List<V>>) throws -> List<V> {
        let holder = GVHolder()
        try realm.write {
            realm.add(holder)
            holder[keyPath: keyPath].append(objectsIn: V.samples.reversed())
        }
        return holder[keyPath: keyPath]
    }

    /// Generic over `V` with Realm's constraint: the smallest and largest of the samples.
    func checkMinMax<V: GVSample>(_ list: List<V>) where V.PersistedType: MinMaxType {
        let values = V.samples.filter { !$0._isNil }
        #expect(list.min() == values.first, "min of \(V.self)")
        #expect(list.max() == values.last, "max of \(V.self)")
    }

    /// Generic over `V` with Realm's constraint: sorted both ways and without repeats.
    func checkSortable<V: GVSample>(_ list: List<V>) where V.PersistedType: SortableType {
        #expect(Array(list.sorted()) == V.samples, "sorted \(V.self)")
        #expect(Array(list.sorted(ascending: false)) == V.samples.reversed(), "sorted descending \(V.self)")
        #expect(Array(list.distinct()) == V.samples.reversed(), "distinct \(V.self)")
    }

    /// Generic over `V` with Realm's constraint: the sum and the average, as Realm's `AddableType` allows.
    func checkAddable<V: GVSample>(_ list: List<V>, sum: V, average: Double) where V.PersistedType: AddableType {
        #expect(list.sum() == sum, "sum of \(V.self)")
        let mean: Double? = list.average()
        #expect(mean == average, "average of \(V.self)")
    }

    /// `MutableSet<T>` for any `T: RealmCollectionValue` (hashable through the protocol, as in Realm).
    func setCount<T: RealmCollectionValue>(_ set: MutableSet<T>) -> Int { set.count }

    /// Realm's `OptionalProtocol`: generic code names the wrapped type through it.
    func unwrapped<T: OptionalProtocol>(_ value: T) -> T.Wrapped { value._rlmInferWrappedType() }

    /// Realm's generic aggregates by name (`CustomColumnNameTests` calls them this way).
    func aggregates<T: _HasPersistedType>(_ results: Results<GVHolder>, _ property: String, as: T.Type)
        -> (min: T?, max: T?, sum: T, average: T?) where T.PersistedType: AddableType & MinMaxType
    {
        (results.min(ofProperty: property), results.max(ofProperty: property), results.sum(ofProperty: property),
         results.average(ofProperty: property))
    }

    @Test func valuesOfEveryKindAreOrderedAndAggregatedGenerically() throws {
        defer { dir.remove() }
        let realm = try realm()
        checkMinMax(try filledList(realm, \.ints))
        checkMinMax(try filledList(realm, \.optionalInts))
        checkMinMax(try filledList(realm, \.doubles))
        checkMinMax(try filledList(realm, \.decimals))
        checkMinMax(try filledList(realm, \.dates))
        checkMinMax(try filledList(realm, \.levels))
        checkSortable(try filledList(realm, \.ints))
        checkSortable(try filledList(realm, \.optionalInts))
        checkSortable(try filledList(realm, \.strings))
        checkSortable(try filledList(realm, \.decimals))
        checkSortable(try filledList(realm, \.dates))
        // Data sorts by its bytes (a prefix first), not by the base64 text it is stored as.
        checkSortable(try filledList(realm, \.datas))
        checkAddable(try filledList(realm, \.ints), sum: 6, average: 2)
        checkAddable(try filledList(realm, \.optionalInts), sum: 6, average: 2)
        checkAddable(try filledList(realm, \.doubles), sum: 7.5, average: 2.5)
        // Mixed values aggregate their numbers, whatever their types (Realm's `AnyRealmValue: MinMaxType, AddableType`),
        // as decimals when managed (realm-core's), as doubles when not (Foundation's `@sum` in Realm).
        checkMinMax(try filledList(realm, \.mixed))
        checkAddable(try filledList(realm, \.mixed), sum: .decimal128(Decimal128(6.5)), average: 6.5 / 3)
        let strays = try filledList(realm, \.mixed)
        try realm.write { strays.append(objectsIn: [.string("z"), .none, .bool(true)]) }
        #expect(strays.min() == .int(1) && strays.max() == .double(3.5))
        #expect(strays.sum() == .decimal128(Decimal128(6.5)))
        let mean: AnyRealmValue? = strays.average()
        #expect(mean == .decimal128(Decimal128(6.5) / Decimal128(3)))
        let unmanaged = List<AnyRealmValue>()
        unmanaged.append(objectsIn: [.int(2), .int(5)])
        #expect(unmanaged.sum() == .double(7) && unmanaged.max() == .int(5))
    }

    @Test func persistedTypesAreRealms() {
        #expect(GVHolder.PersistedType.self == Object.self)
        #expect(Int.PersistedType.self == Int.self)
        #expect(Int?.PersistedType.self == Int?.self)
        #expect(GVLevel.PersistedType.self == Int.self)
        #expect(GVLevel?.PersistedType.self == Int?.self)
        #expect(Int._rlmDefaultValue() == 0)
        #expect(String?._rlmDefaultValue() == nil)
        #expect(GVLevel._rlmDefaultValue() == .high)  // the first case declared
        #expect(unwrapped(Optional(5)) == 5)
    }

    @Test func persistableEnumsOrderByRawValue() {
        #expect(GVLevel() == .high)  // the first case declared, as Realm's `init()`
        #expect(GVLevel.low < GVLevel.high)
        #expect([GVLevel.high, .low, .mid].sorted() == [.low, .mid, .high])
        #expect([GVLevel.high, .low].min() == .low)
    }

    @Test func setsOfAnyCollectionValue() throws {
        defer { dir.remove() }
        let realm = try realm()
        let holder = GVHolder()
        try realm.write {
            realm.add(holder)
            holder.stringSet.insert(objectsIn: ["a", "b", "a"])
            holder.optionalIntSet.insert(objectsIn: [1, nil, 1])
        }
        #expect(setCount(holder.stringSet) == 2)
        #expect(setCount(holder.optionalIntSet) == 2)
        #expect(setCount(MutableSet<Data>()) == 0)
    }

    @Test func aggregatesByNameTakeRealmsGenericSignature() throws {
        defer { dir.remove() }
        let realm = try realm()
        try realm.write {
            for n in [4, 1, 7] {
                let holder = GVHolder()
                holder.number = n
                holder.amount = Decimal128(n) / 2
                realm.add(holder)
            }
        }
        let all = realm.objects(GVHolder.self)
        let ints = aggregates(all, "number", as: Int.self)
        #expect(ints.min == 1 && ints.max == 7 && ints.sum == 12 && ints.average == 4)
        let decimals = aggregates(all, "amount", as: Decimal128.self)
        #expect(decimals.min == Decimal128(1) / 2 && decimals.max == Decimal128(7) / 2 && decimals.sum == 6)
        #expect(decimals.average == 2)
        // An `AnyRealmValue` property: its numbers, of any type; other values and nulls are left out.
        try realm.write {
            for (holder, value) in zip(all, [AnyRealmValue.int(3), .double(0.5), .string("big")]) { holder.anything = value }
            realm.add(GVHolder())
        }
        let mixed = aggregates(all, "anything", as: AnyRealmValue.self)
        #expect(mixed.min == .double(0.5) && mixed.max == .int(3))
        #expect(mixed.sum == .double(3.5) && mixed.average == .double(1.75))
    }
}

/// Three distinct values (four with nil, first) of a type, in Realm's ascending order.
protocol GVSample: RealmCollectionValue {
    static var samples: [Self] { get }
    var _isNil: Bool { get }
}

extension GVSample {
    var _isNil: Bool { false }
}

extension Int: GVSample {
    static var samples: [Int] { [1, 2, 3] }
}
extension Double: GVSample {
    static var samples: [Double] { [1.5, 2.5, 3.5] }
}
extension String: GVSample {
    static var samples: [String] { ["a", "b", "c"] }
}
extension Decimal128: GVSample {
    static var samples: [Decimal128] { [Decimal128(-1), Decimal128(1) / 4, Decimal128(10)] }
}
extension Date: GVSample {
    static var samples: [Date] { [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2), Date(timeIntervalSince1970: 3)] }
}
extension Data: GVSample {
    // Base64 "AQ==", "AQA=", "/w==": text order would put the last first.
    static var samples: [Data] { [Data([0x01]), Data([0x01, 0x00]), Data([0xff])] }
}
extension AnyRealmValue: GVSample {
    static var samples: [AnyRealmValue] { [.int(1), .float(2), .double(3.5)] }
}
extension GVLevel: GVSample {
    static var samples: [GVLevel] { [.low, .mid, .high] }
}
extension Optional: GVSample where Wrapped: GVSample & _RealmCollectionValueInsideOptional {
    static var samples: [Wrapped?] { [nil] + Wrapped.samples.map { $0 } }
    var _isNil: Bool { self == nil }
}

enum GVLevel: Int, PersistableEnum {
    case high = 30, low = 10, mid = 20
}

final class GVHolder: Object {
    @Persisted var number: Int
    @Persisted var amount: Decimal128
    @Persisted var ints: List<Int>
    @Persisted var optionalInts: List<Int?>
    @Persisted var doubles: List<Double>
    @Persisted var strings: List<String>
    @Persisted var decimals: List<Decimal128>
    @Persisted var dates: List<Date>
    @Persisted var datas: List<Data>
    @Persisted var levels: List<GVLevel>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var anything: AnyRealmValue
    @Persisted var stringSet: MutableSet<String>
    @Persisted var optionalIntSet: MutableSet<Int?>
}
