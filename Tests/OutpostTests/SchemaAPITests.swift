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

    @Test func sortDescriptorsDescribeThemselves() {
        #expect(SortDescriptor(keyPath: "name").description == "SortDescriptor(keyPath: name, direction: ascending)")
        #expect(SortDescriptor(keyPath: "age", ascending: false).description
            == "SortDescriptor(keyPath: age, direction: descending)")
    }
}
