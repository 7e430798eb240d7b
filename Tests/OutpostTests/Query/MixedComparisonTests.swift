import Foundation
import Outpost
import OutpostTesting
import Testing

final class MixedRow: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var any: AnyRealmValue
}

/// Queries compare `AnyRealmValue` properties as realm-core compares mixed values: numbers of any type by value,
/// strings with strings, each other kind with its own kind; values that cannot be compared match only `!=`.
@Suite struct MixedComparisonTests {
    let dir = TemporaryDirectory()
    static let oid = ObjectId("6058f12b957ba06156586a7c")

    func realm() throws -> Realm {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [MixedRow.self]))
        let values: [AnyRealmValue] = [
            .string("FooBar"), .int(5), .double(4.5), .float(2), .decimal128(Decimal128(7)), .bool(true),
            .objectId(Self.oid), .date(Date(timeIntervalSince1970: 100)), .none, .data(Data([1, 2])),
            .fromArray([.int(1), .string("a")]), .fromDictionary(["k": .int(1)]),
        ]
        try realm.write {
            for (id, value) in values.enumerated() { realm.create(MixedRow.self, value: ["id": id, "any": value]) }
        }
        return realm
    }

    func ids(_ realm: Realm, _ query: (Query<MixedRow>) -> Query<Bool>) -> [Int] {
        realm.objects(MixedRow.self).where(query).map(\.id).sorted()
    }

    @Test func stringsCompareWithStringsOnly() throws {
        defer { dir.remove() }
        let realm = try realm()
        #expect(ids(realm) { $0.any == .string("FooBar") } == [0])
        #expect(ids(realm) { $0.any > .string("FooBar") } == [])
        #expect(ids(realm) { $0.any >= .string("FooBar") } == [0])
        #expect(ids(realm) { $0.any < .string("Zz") } == [0])
        #expect(ids(realm) { $0.any != .string("FooBar") }.count == 11)
        #expect(realm.objects(MixedRow.self).filter("any == %@", "FooBar").count == 1)
    }

    @Test func numbersOfAnyTypeCompareByValue() throws {
        defer { dir.remove() }
        let realm = try realm()
        #expect(ids(realm) { $0.any > .int(4) } == [1, 2, 4])
        #expect(ids(realm) { $0.any == .double(5) } == [1])
        #expect(ids(realm) { $0.any <= .decimal128(Decimal128(2)) } == [3])
        #expect(realm.objects(MixedRow.self).filter("any > 4.9").map(\.id).sorted() == [1, 4])
        #expect(ids(realm) { $0.any == .int(1) } == [])  // true is no number
        #expect(ids(realm) { $0.any == .bool(true) } == [5])
    }

    /// A link held in a mixed property equals the object it links to (as an `AnyRealmValue` or as the object), and
    /// nothing else; it does not order against other values.
    @Test func linksCompareByTheObject() throws {
        defer { dir.remove() }
        let realm = try realm()
        let first = try #require(realm.object(ofType: MixedRow.self, forPrimaryKey: 0))
        try realm.write { realm.create(MixedRow.self, value: ["id": 20, "any": AnyRealmValue.object(first)]) }
        #expect(ids(realm) { $0.any == .object(first) } == [20])
        #expect(realm.objects(MixedRow.self).filter("any == %@", first).map(\.id) == [20])
        #expect(ids(realm) { $0.any != .object(first) }.contains(20) == false)
        #expect(ids(realm) { $0.any > .int(0) }.contains(20) == false)
    }

    @Test func otherKindsCompareAmongThemselves() throws {
        defer { dir.remove() }
        let realm = try realm()
        #expect(ids(realm) { $0.any == .objectId(Self.oid) } == [6])
        #expect(ids(realm) { $0.any > .date(Date(timeIntervalSince1970: 50)) } == [7])
        #expect(ids(realm) { $0.any == .data(Data([1, 2])) } == [9])
        #expect(ids(realm) { $0.any == .none } == [8])
        #expect(ids(realm) { $0.any != .none }.count == 11)
        // Nested collections are equal when they hold the same values.
        #expect(ids(realm) { $0.any == .fromArray([.int(1), .string("a")]) } == [10])
        #expect(ids(realm) { $0.any == .fromDictionary(["k": .int(1)]) } == [11])
        #expect(ids(realm) { $0.any == .fromArray([.int(2)]) } == [])
    }
}
