import Foundation
import Outpost
import OutpostTesting
import Testing

/// Queries into the lists and dictionaries nested in an `AnyRealmValue`: `anyCol[0]`, `anyCol["key"]` and
/// `anyCol.any` (`[*]`), from the type-safe builder and from query text; a path that leads nowhere matches nothing.
@Suite struct MixedPathQueryTests {
    let dir = TemporaryDirectory()

    /// 0: a nested list, 1: a nested dictionary, 2: a plain int, 3: nothing, 4: a list holding a dictionary and a null.
    func realm() throws -> Realm {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [MixedRow.self]))
        let inner: AnyRealmValue = .fromArray([.fromArray([.string("john"), .bool(false)]), .double(76.54)])
        let values: [AnyRealmValue] = [
            .fromArray([.fromArray([inner, .int(99)]), .float(20.34)]),
            .fromDictionary(["key0": .fromDictionary(["key3": .int(99), "key2": .fromDictionary(["key5": .double(76.54)])]),
                             "key1": .float(20.34), "quote\"d": .string("q")]),
            .int(99),
            .none,
            .fromArray([.fromDictionary(["name": .string("Rex"), "id": .objectId(ObjectId("6058f12b957ba06156586a7c"))]),
                        .none]),
        ]
        try realm.write {
            for (id, value) in values.enumerated() { realm.create(MixedRow.self, value: ["id": id, "any": value]) }
        }
        return realm
    }

    func ids(_ realm: Realm, _ query: (Query<MixedRow>) -> Query<Bool>) -> [Int] {
        realm.objects(MixedRow.self).where(query).map(\.id).sorted()
    }

    func ids(_ realm: Realm, _ format: String, _ args: Any...) throws -> [Int] {
        try realm.objects(MixedRow.self).filter(checked: format, args).map(\.id).sorted()
    }

    @Test func indexesIntoNestedLists() throws {
        defer { dir.remove() }
        let realm = try realm()
        #expect(ids(realm) { $0.any[1] == .float(20.34) } == [0])
        #expect(ids(realm) { $0.any[0][1] == .int(99) } == [0])
        #expect(ids(realm) { $0.any[0][1] >= .int(99) } == [0])
        #expect(ids(realm) { $0.any[0][1] > .double(98.5) } == [0])
        #expect(ids(realm) { $0.any[0][0][1] == .double(76.54) } == [0])
        #expect(ids(realm) { $0.any[0][0][0][0] == .string("john") } == [0])
        #expect(ids(realm) { $0.any[0][0][0][1] == .bool(false) } == [0])
        // A place that does not exist has no value: neither == nor != matches there.
        #expect(ids(realm) { $0.any[0][1] != .int(99) } == [])
        #expect(ids(realm) { $0.any[7] == .int(99) } == [])
        #expect(ids(realm) { $0.any[7] != .int(99) } == [])
        // A null element is a value: == nil matches it, and != another value.
        #expect(ids(realm) { $0.any[1] == .none } == [4])
        #expect(ids(realm) { $0.any[1] != .int(3) } == [0, 4])
    }

    @Test func keysIntoNestedDictionaries() throws {
        defer { dir.remove() }
        let realm = try realm()
        #expect(ids(realm) { $0.any["key1"] == .float(20.34) } == [1])
        #expect(ids(realm) { $0.any["key0"]["key3"] == .int(99) } == [1])
        #expect(ids(realm) { $0.any["key0"]["key2"]["key5"] == .double(76.54) } == [1])
        #expect(ids(realm) { $0.any["quote\"d"] == .string("q") } == [1])
        #expect(ids(realm) { $0.any["key0"]["key3"] != .int(99) } == [])
        // "#any" is a key like any other; only `.any` means every value.
        #expect(ids(realm) { $0.any["key0"]["#any"] == .int(99) } == [])
        #expect(ids(realm) { $0.any[0]["name"] == .string("Rex") } == [4])
        #expect(ids(realm) { $0.any[0]["id"] == .objectId(ObjectId("6058f12b957ba06156586a7c")) } == [4])
        // A key into a list, an index into a dictionary, a subscript on a plain value: nothing.
        #expect(ids(realm) { $0.any["key1"] == .int(99) || $0.any[0] == .int(99) } == [])
    }

    @Test func anyMatchesWhenOneElementDoes() throws {
        defer { dir.remove() }
        let realm = try realm()
        #expect(ids(realm) { $0.any.any == .float(20.34) } == [0, 1])
        #expect(ids(realm) { $0.any[0][0].any == .double(76.54) } == [0])
        #expect(ids(realm) { $0.any[0][0][0].any == .bool(false) } == [0])
        #expect(ids(realm) { $0.any["key0"].any >= .int(99) } == [1])
        #expect(ids(realm) { $0.any["key0"].any <= .int(99) } == [1])
        #expect(ids(realm) { $0.any.any["name"] == .string("Rex") } == [4])
        #expect(ids(realm) { $0.any.any.any == .int(99) } == [0, 1])
        #expect(ids(realm) { $0.any.any == .int(99) } == [])
    }

    @Test func queryTextTakesTheSameSubscripts() throws {
        defer { dir.remove() }
        let realm = try realm()
        #expect(try ids(realm, "any[1] == %@", AnyRealmValue.float(20.34)) == [0])
        #expect(try ids(realm, "any[0][1] == 99") == [0])
        #expect(try ids(realm, "any['key0']['key3'] == 99") == [1])
        #expect(try ids(realm, "any[*] == %@", AnyRealmValue.float(20.34)) == [0, 1])
        #expect(try ids(realm, "any[*]['name'] == 'Rex'") == [4])
        #expect(try ids(realm, "any[%@][%@] == %@", 0, 1, 99) == [0])
        #expect(try ids(realm, "any[%@][%@] == %@", "key0", "key3", 99) == [1])
        #expect(try ids(realm, "any[$0][$1] == $2", "key0", "key3", 99) == [1])
        #expect(throws: QueryError.self) { try realm.objects(MixedRow.self).filter(checked: "any[%@] == 1", [1.5]).count }
    }

    @Test func printsAsRealmDoes() {
        let root = Query<MixedRow>._constructForTesting()
        let list = (root.any[0][1] == .int(99))._constructPredicate()
        #expect(list.0 == "(any[%@][%@] == %@)")
        #expect(list.1.count == 3 && list.1[0] as? Int == 0 && list.1[1] as? Int == 1)
        let any = (root.any["key0"].any == .int(99))._constructPredicate()
        #expect(any.0 == "(any[%@][%K] == %@)")
        #expect(any.1[0] as? String == "key0" && any.1[1] as? String == "#any")
    }
}
