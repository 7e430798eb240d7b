import Foundation
import Outpost
import OutpostTesting
import Testing

enum RGQMood: String, PersistableEnum {
    case calm, happy, grumpy
}

final class RGQChild: Object {
    @Persisted var doubleCol: Double
    @Persisted var name: String
}

final class RGQItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var intCol: Int
    @Persisted var optIntCol: Int?
    @Persisted var stringCol: String
    @Persisted var boolCol: Bool
    @Persisted var listInt: List<Int>
    @Persisted var listOptInt: List<Int?>
    @Persisted var mapInt: Map<String, Int>
    @Persisted var mapOptInt: Map<String, Int?>
    @Persisted var listMood: List<RGQMood>
    @Persisted var mapOptMood: Map<String, RGQMood?>
    @Persisted var children: List<RGQChild>
    @Persisted var child: RGQChild?
    @Persisted var mapChild: Map<String, RGQChild?>
    @Persisted var anyCol: AnyRealmValue
}

/// Realm's generic query code (its tests' validators are written this way): operators reached through
/// `_Persistable`'s `PersistedType`, collection queries through `RealmCollection`/`RealmKeyedCollection`, and
/// `_constructPredicate()` printing Realm's `NSPredicate` text.
@Suite struct RealmGenericQueryTests {
    let dir = TemporaryDirectory()

    private func fixture() throws -> Realm {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [RGQItem.self, RGQChild.self]))
        try realm.write {
            realm.create(RGQItem.self, value: [
                "id": 1, "intCol": 5, "optIntCol": 2, "stringCol": "Foo", "boolCol": true,
                "listInt": [1, 2, 3], "listOptInt": [1, 3], "mapInt": ["a": 1, "b": 4], "mapOptInt": ["a": 2],
                "listMood": [RGQMood.happy.rawValue], "mapOptMood": ["mon": RGQMood.calm.rawValue],
                "children": [["doubleCol": 1.5, "name": "x"], ["doubleCol": 2.5, "name": "y"]],
                "child": ["doubleCol": 9.0, "name": "z"],
                "mapChild": ["a": ["doubleCol": 1.0, "name": "m"], "b": ["doubleCol": 5.0, "name": "n"]],
            ])
            realm.create(RGQItem.self, value: [
                "id": 2, "intCol": 1, "stringCol": "bar", "boolCol": false,
                "listInt": [7], "listOptInt": [nil, 9], "mapInt": ["a": 8],
                "listMood": [RGQMood.grumpy.rawValue],
            ])
        }
        return realm
    }

    private func ids(_ realm: Realm, _ query: (Query<RGQItem>) -> Query<Bool>) -> [Int] {
        realm.objects(RGQItem.self).where(query).map(\.id).sorted()
    }

    // Written as Realm's QueryTests write their validators: generic over `_Persistable` and its `PersistedType`.
    private func greaterThan<Root: Object, T: _Persistable>(
        _ realm: Realm, _ root: Root.Type, _ lhs: (Query<Root>) -> Query<T>, _ value: T
    ) -> Int where T.PersistedType: _QueryNumeric {
        realm.objects(Root.self).where { lhs($0) > value }.count
    }

    private func startsWith<Root: Object, T: _Persistable>(
        _ realm: Realm, _ root: Root.Type, _ lhs: (Query<Root>) -> Query<T>, _ value: T
    ) -> Int where T.PersistedType: _QueryString {
        realm.objects(Root.self).where { lhs($0).starts(with: value, options: [.caseInsensitive]) }.count
    }

    private func schemaType<T: _RealmSchemaDiscoverable>(_ type: T.Type) -> PropertyType { T._rlmType }

    @Test func genericValidatorsReachOperatorsThroughPersistedType() throws {
        let realm = try fixture()
        #expect(greaterThan(realm, RGQItem.self, { $0.intCol }, 2) == 1)
        #expect(greaterThan(realm, RGQItem.self, { $0.optIntCol }, Int?.some(1)) == 1)
        #expect(greaterThan(realm, RGQItem.self, { $0.children.doubleCol }, 2.0) == 1)
        #expect(startsWith(realm, RGQItem.self, { $0.stringCol }, "B") == 1)
        #expect(schemaType(RGQItem.self) == .object)
        #expect(schemaType(Int?.self) == .int)
        #expect(Int?._rlmOptional && !Int._rlmOptional)
    }

    @Test func collectionsOfOptionalsAndMapsTakeRanges() throws {
        let realm = try fixture()
        #expect(ids(realm) { $0.listOptInt.contains(1...3) } == [1])
        #expect(ids(realm) { $0.listOptInt.contains(1..<3) } == [])
        #expect(ids(realm) { $0.mapOptInt.contains(2...2) } == [1])
        #expect(ids(realm) { $0.mapInt.contains(1..<5) } == [1])
    }

    @Test func rawAndPersistableValuesOfCollections() throws {
        let realm = try fixture()
        #expect(ids(realm) { $0.listMood.rawValue.contains("happy") } == [1])
        #expect(ids(realm) { $0.listMood.persistableValue.contains("grumpy") } == [2])
        #expect(ids(realm) { $0.mapOptMood.rawValue["mon"] == "calm" } == [1])
    }

    @Test func constructPredicatePrintsRealmsFormat() {
        func text(_ query: (Query<RGQItem>) -> Query<Bool>) -> String {
            query(Query<RGQItem>._constructForTesting())._constructPredicate().0
        }
        #expect(text { $0.intCol == 1 } == "(intCol == %@)")
        #expect(text { $0.boolCol } == "boolCol == true")
        #expect(text { !$0.boolCol } == "boolCol == false")
        #expect(text { !$0.stringCol.ends(with: "x") } == "(NOT stringCol ENDSWITH %@)")
        #expect(text { $0.stringCol.equals("x", options: [.caseInsensitive, .diacriticInsensitive]) }
            == "(stringCol ==[cd] %@)")
        #expect(text { $0.intCol > 1 && ($0.boolCol || $0.optIntCol == nil) }
            == "((intCol > %@) && (boolCol == true || (optIntCol == %@)))")
        #expect(text { $0.children.doubleCol.avg > 1 } == "(children.@avg.doubleCol > %@)")
        #expect(text { $0.children.name == "x" } == "(ANY children.name == %@)")
        #expect(text { $0.listInt.contains(1...3) } == "((listInt.@min >= %@) && (listInt.@max <= %@))")
        #expect(text { $0.intCol.contains(1...3) } == "(intCol BETWEEN {%@, %@})")
        #expect(text { $0.mapInt["a"] == 1 } == "(mapInt[%@] == %@)")
        #expect(text { $0.mapInt.values > 1 } == "(ANY mapInt.@allValues > %@)")
        #expect(text { $0.mapInt.keys == "a" } == "(ANY mapInt.@allKeys == %@)")
        #expect(text { ($0.children.doubleCol > 1).count == 2 }
            == "(SUBQUERY(children, $col1, ($col1.doubleCol > %@)).@count == %@)")
        let built = (Query<RGQItem>._constructForTesting().mapInt["k"] == 4)._constructPredicate()
        #expect(built.1.count == 2)
        #expect(built.1[0] as? String == "k")
        #expect(built.1[1] as? Int64 == 4)
    }

    @Test func mapsOfObjectsTakeTypeSafeQueries() throws {
        let realm = try fixture()
        let item = try #require(realm.object(ofType: RGQItem.self, forPrimaryKey: 1))
        #expect(item.mapChild.where { $0.doubleCol > 2 }.compactMap { $0?.name } == ["n"])
        #expect(item.mapChild.where { $0.name.starts(with: "m") }.count == 1)
    }

    @Test func mixedValuesHoldingObjectsCompareByIdentity() throws {
        let realm = try fixture()
        let first = try #require(realm.object(ofType: RGQItem.self, forPrimaryKey: 1))
        let second = try #require(realm.object(ofType: RGQItem.self, forPrimaryKey: 2))
        let child = try #require(first.child)
        try realm.write {
            first.anyCol = .object(child)
            // A DynamicObject stored in a mixed value keeps its row's class.
            second.anyCol = .object(try #require(realm.dynamicObjects("RGQChild").filter("name == 'x'").first))
        }
        #expect(ids(realm) { $0.anyCol == .object(child) } == [1])
        #expect(ids(realm) { $0.anyCol != .object(child) } == [2])
        #expect(second.anyCol.object(RGQChild.self)?.name == "x")
        #expect(realm.objects(RGQItem.self).filter("anyCol == %@", child).count == 1)
    }

    @Test func invalidatingATokenAnswersWhetherItWasValid() throws {
        let realm = try fixture()
        let token = realm.objects(RGQItem.self).observe { _ in }
        #expect(token.invalidate())
        #expect(!token.invalidate())
    }

    @Test func objectsAnswerKeyValueCoding() throws {
        let realm = try fixture()
        let item = try #require(realm.object(ofType: RGQItem.self, forPrimaryKey: 1))
        #expect(item.value(forKey: "stringCol") as? String == "Foo")
        #expect(item.value(forKeyPath: "child.name") as? String == "z")
        #expect(realm.object(ofType: RGQItem.self, forPrimaryKey: 2)?.value(forKeyPath: "child.name") == nil)
        try realm.write { item.setValue("Baz", forKey: "stringCol") }
        #expect(item.stringCol == "Baz")
        let unmanaged = RGQChild()
        unmanaged.setValue(3.5, forKey: "doubleCol")
        #expect(unmanaged.value(forKey: "doubleCol") as? Double == 3.5)
    }
}
