import Foundation
import Outpost
import OutpostTesting
import Testing

/// Realm's schema introspection API: `Realm.schema`, `ObjectSchema`, `Property`, and `SortDescriptor`'s text.
@Suite struct SchemaAPITests {
    @Test func propertiesSayWhichCollectionTheyAre() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        let schema = try #require(realm.schema["TSPerson"])
        let dogs = try #require(schema["dogs"])
        #expect(dogs.isArray && !dogs.isSet && !dogs.isMap)
        let tags = try #require(schema["tags"])
        #expect(tags.isSet && !tags.isArray && !tags.isMap)
        let scores = try #require(schema["scores"])
        #expect(scores.isMap && !scores.isArray && !scores.isSet)
        let name = try #require(schema["name"])
        #expect(!name.isArray && !name.isSet && !name.isMap)
        #expect(name.columnName == "name")
        #expect(ObjectIdentifier(schema.objectClass) == ObjectIdentifier(TSPerson.self))
        #expect(realm.schema.objectSchema.map(\.className).contains("TSPerson"))
        #expect(realm.schema.objectSchema == realm.schema.objectSchemas)
    }

    /// `_name(for:)` names key paths through collections as Realm does: an element stands for any element.
    @Test func keyPathNamesThroughCollections() {
        #expect(_name(for: \Owner.dogs[0].name) == "dogs.name")
        #expect(_name(for: \Owner.dogs[0].owners[0].nickname) == "dogs.owners.nickname")
        #expect(_name(for: \Owner.previousAddresses[0].city) == "previousAddresses.city")
        #expect(_name(for: \Dog.owners) == "owners")
        #expect(_name(for: \Owner.favorite?.owners[0].address?.city) == "favorite.owners.address.city")
        #expect(_name(for: \TraceHolder.pets[""]??.name) == "pets.name")
        #expect(_name(for: \TraceHolder.pack[0].owners[0].name) == "pack.owners.name")
    }

    /// Realm's split: `properties` are the persisted ones, linking objects are `computedProperties`; `allProperties`
    /// (Outpost's) has both in declaration order.
    @Test func linkingObjectsAreComputedProperties() throws {
        let schema = try #require(Dog.sharedSchema())
        #expect(!schema.properties.contains { $0.name == "owners" })
        #expect(schema.computedProperties.map(\.name) == ["owners"])
        #expect(schema.allProperties.count == schema.properties.count + 1)
        #expect(schema["owners"]?.type == .linkingObjects)
    }

    /// A `primaryKey()` override makes that property the primary key, as `@Persisted(primaryKey: true)` does (and
    /// wins over it); `indexedProperties()` and `ignoredProperties()` do nothing to `@Persisted` models, as in Realm.
    @Test func primaryKeyOverrideNamesThePrimaryKey() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [LegacyKeyedItem.self, OverriddenKeyItem.self]))
        let schema = try #require(realm.schema["LegacyKeyedItem"])
        #expect(schema.primaryKeyProperty?.name == "code")
        #expect(schema["code"]?.isIndexed == true)
        #expect(schema["note"]?.isIndexed == false)
        #expect(schema["scratch"] != nil)  // `@Persisted`: stored whatever `ignoredProperties()` says
        #expect(realm.schema["OverriddenKeyItem"]?.primaryKeyProperty?.name == "code")
        #expect(LegacyKeyedItem.sharedSchema()?.properties.map(\.name) == ["code", "note", "scratch"])
        #expect(LegacyKeyedItem.sharedSchema() == LegacyKeyedItem().objectSchema)
        try realm.write {
            realm.add(LegacyKeyedItem(value: ["code": "a", "note": "first"]))
            realm.add(LegacyKeyedItem(value: ["code": "a", "note": "second"]), update: .modified)
            realm.add(OverriddenKeyItem(value: ["id": 1, "code": "x"]))
            realm.add(OverriddenKeyItem(value: ["id": 1, "code": "y"]))  // `id` is not the key: no conflict
        }
        #expect(realm.objects(LegacyKeyedItem.self).count == 1)
        #expect(realm.object(ofType: LegacyKeyedItem.self, forPrimaryKey: "a")?.note == "second")
        #expect(realm.objects(OverriddenKeyItem.self).count == 2)
        #expect(realm.object(ofType: OverriddenKeyItem.self, forPrimaryKey: "y") != nil)
    }

    /// Realm Swift spells two cases as Objective-C imports them: `.UUID` and `.any` (for `AnyRealmValue`).
    @Test func propertyTypesAnswerToRealmsCaseNames() {
        func realmName(_ type: PropertyType) -> String {
            switch type {
            case .UUID: "UUID"
            case .any: "any"
            default: type.rawValue
            }
        }
        #expect(realmName(.uuid) == "UUID")
        #expect(realmName(.mixed) == "any")
        #expect(realmName(.string) == "string")
        #expect(PropertyType.UUID == .uuid && PropertyType.any == .mixed)
    }

    /// Realm's text: each class by name, indented inside `Schema { … }`.
    @Test func schemaDescribesItsClassesByName() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [OverriddenKeyItem.self, LegacyKeyedItem.self]))
        let text = realm.schema.description
        #expect(text.hasPrefix("Schema {\n\tLegacyKeyedItem {\n\t\t"))
        #expect(text.hasSuffix("\n\t}\n}"))
        let legacy = try #require(text.range(of: "LegacyKeyedItem {"))
        let overridden = try #require(text.range(of: "OverriddenKeyItem {"))
        #expect(legacy.lowerBound < overridden.lowerBound)
    }

    @Test func sortDescriptorsDescribeThemselves() {
        #expect(SortDescriptor(keyPath: "name").description == "SortDescriptor(keyPath: name, direction: ascending)")
        #expect(SortDescriptor(keyPath: "age", ascending: false).description
            == "SortDescriptor(keyPath: age, direction: descending)")
    }
}

/// A model that names its primary key the legacy way.
final class LegacyKeyedItem: Object {
    @Persisted var code = ""
    @Persisted var note = ""
    @Persisted var scratch = ""
    override class func primaryKey() -> String? { "code" }
    override class func indexedProperties() -> [String] { ["note"] }
    override class func ignoredProperties() -> [String] { ["scratch"] }
}

/// A `primaryKey()` override beside `@Persisted(primaryKey: true)`: the override wins, as in Realm.
final class OverriddenKeyItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var code = ""
    override class func primaryKey() -> String? { "code" }
}

final class TraceHolder: Object {
    @Persisted var pets: Map<String, Dog?>
    @Persisted var pack: MutableSet<Dog>
}
