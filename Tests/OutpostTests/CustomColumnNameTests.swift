import Foundation
import OutpostTesting
import Testing

@testable import Outpost

final class MappedDog: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var dogName: String
    @Persisted var age: Int
    @Persisted var nickname: String?
    @Persisted var extra: AnyRealmValue
    @Persisted(originProperty: "pets") var walkers: LinkingObjects<MappedOwner>

    override class func propertiesMapping() -> [String: String] {
        ["id": "_id", "dogName": "dog_name", "age": "dog_age", "extra": "extra_value", "noSuchProperty": "ignored"]
    }

    convenience init(_ name: String, age: Int) {
        self.init()
        dogName = name
        self.age = age
    }
}

final class MappedOwner: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var fullName: String
    @Persisted var pets: List<MappedDog>
    @Persisted var favourite: MappedDog?
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var address: MappedAddress?

    override class func propertiesMapping() -> [String: String] {
        ["id": "_id", "fullName": "full_name", "pets": "pet_list", "favourite": "best_dog", "tags": "tag_set",
         "scores": "score_map", "address": "home_address"]
    }
}

final class MappedAddress: EmbeddedObject {
    @Persisted var cityName: String
    override class func propertiesMapping() -> [String: String] { ["cityName": "city"] }
}

/// The same class as `MappedDog` with its Swift properties renamed over the same stored names.
enum RenamedModels {
    final class MappedDog: Object {
        @Persisted(primaryKey: true) var identifier: ObjectId
        @Persisted var name: String
        @Persisted var years: Int
        @Persisted var nickname: String?
        @Persisted var more: AnyRealmValue
        override class func propertiesMapping() -> [String: String] {
            ["identifier": "_id", "name": "dog_name", "years": "dog_age", "more": "extra_value"]
        }
    }
}

/// Two properties stored under one name: a model error.
final class CollidingColumns: Object {
    @Persisted var a: Int
    @Persisted var b: Int
    override class func propertiesMapping() -> [String: String] { ["b": "a"] }
}

/// `propertiesMapping()`: apps use the Swift names; the file (and sync, and events) the mapped ones.
@Suite struct CustomColumnNameTests {
    private static let types: [ObjectBase.Type] = [MappedDog.self, MappedOwner.self, MappedAddress.self]

    private func open(_ dir: TemporaryDirectory) throws -> Realm {
        try Realm(configuration: dir.configuration(objectTypes: Self.types))
    }

    /// Ann owns Rex (3) and Bo (5), lives in Oslo; Bob owns Rex's namesake-less Ivy (7).
    private func fill(_ realm: Realm) throws -> (ann: MappedOwner, rex: MappedDog) {
        let rex = MappedDog("Rex", age: 3), bo = MappedDog("Bo", age: 5), ivy = MappedDog("Ivy", age: 7)
        let ann = MappedOwner(), bob = MappedOwner()
        ann.fullName = "Ann"
        ann.pets.append(objectsIn: [rex, bo])
        ann.favourite = bo
        ann.tags.insert("vet")
        ann.scores["a"] = 2
        let address = MappedAddress()
        address.cityName = "Oslo"
        ann.address = address
        bob.fullName = "Bob"
        bob.pets.append(ivy)
        try realm.write { realm.add([ann, bob]) }
        return (ann, rex)
    }

    @Test func theSchemaGivesBothNames() throws {
        // Realm's text: an `AnyRealmValue` is not optional (it holds its own null); a `String?` is.
        #expect(MappedDog().objectSchema.description.contains(
            "extra {\n\t\ttype = mixed;\n\t\tcolumnName = extra_value;\n\t\tindexed = NO;\n\t\tisPrimary = NO;\n"
                + "\t\tarray = NO;\n\t\tset = NO;\n\t\tdictionary = NO;\n\t\toptional = NO;\n\t}"))
        #expect(MappedDog().objectSchema.description.contains("nickname {\n\t\ttype = string;\n\t\tcolumnName = nickname;"))
        let schema = MappedDog().objectSchema
        #expect(schema["dogName"]?.columnName == "dog_name")
        #expect(schema["id"]?.columnName == "_id")
        #expect(schema["nickname"]?.columnName == "nickname")
        #expect(schema["dog_name"] == nil, "the schema is looked up by the Swift name")
        #expect(schema.description.contains("dogName {\n\t\ttype = string;\n\t\tcolumnName = dog_name;\n"))
        #expect(MappedAddress().objectSchema["cityName"]?.columnName == "city")
    }

    @Test func theFileStoresTheMappedNames() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try open(dir)
        _ = try fill(realm)
        let connection = try SQLiteConnection(path: realm.configuration.fileURL!.path)
        func columns(_ table: String) throws -> Set<String> {
            Set(try connection.cached("PRAGMA table_info(\(SQL.quote(table)))").rows().compactMap { row in
                if case .text(let name) = row[1] { name } else { nil }
            })
        }
        #expect(try columns("MappedDog") == ["_rowid", "_id", "dog_name", "dog_age", "nickname", "extra_value"])
        #expect(try columns("MappedOwner").isSuperset(of: ["full_name", "pet_list", "best_dog", "tag_set", "score_map", "home_address"]))
        #expect(try columns("MappedAddress").contains("city"))
        #expect(try connection.scalar("SELECT count(*) FROM MappedDog WHERE dog_name = 'Rex'") == .integer(1))
    }

    @Test func queriesSortsAndAggregatesUseTheSwiftNames() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try open(dir)
        let (ann, rex) = try fill(realm)
        let dogs = realm.objects(MappedDog.self)
        #expect(dogs.where { $0.dogName == "Rex" }.count == 1)
        #expect(dogs.filter("dogName == %@ AND age < 4", "Rex").count == 1)
        #expect(dogs.filter("dog_name == 'Bo'").count == 1, "a stored name answers too, as in Realm")
        #expect(dogs.sorted(byKeyPath: "age", ascending: false).map(\.dogName) == ["Ivy", "Bo", "Rex"])
        #expect(dogs.sorted(by: \.dogName).first?.dogName == "Bo")
        #expect(dogs.distinct(by: ["dogName"]).count == 3)
        #expect(dogs.sum(ofProperty: "age") as Int == 15)
        #expect(dogs.max(of: \.age) == 7)
        #expect(dogs.average(ofProperty: "age") as Double? == 5)
        #expect(realm.object(ofType: MappedDog.self, forPrimaryKey: rex.id)?.dogName == "Rex")

        let owners = realm.objects(MappedOwner.self)
        #expect(owners.where { $0.pets.dogName == "Rex" }.map(\.fullName) == ["Ann"])
        #expect(owners.filter("ANY pets.age > 6").map(\.fullName) == ["Bob"])
        #expect(owners.filter("favourite.dogName == 'Bo'").count == 1)
        // As realm-core: an object whose link is nil sorts after the others ascending, before them descending.
        #expect(owners.sorted(byKeyPath: "favourite.age").map(\.fullName) == ["Ann", "Bob"])
        #expect(owners.sorted(byKeyPath: "favourite.age", ascending: false).map(\.fullName) == ["Bob", "Ann"])
        #expect(owners.distinct(by: ["favourite.age"]).map(\.fullName) == ["Ann"], "and a distinct leaves it out")
        #expect(owners.filter("address.cityName == 'Oslo'").count == 1)
        #expect(owners.filter("'vet' IN tags").count == 1)
        #expect(owners.filter("scores['a'] == 2").count == 1)
        #expect(owners.filter("pets.@count == 2").map(\.fullName) == ["Ann"])
        #expect(owners.filter("SUBQUERY(pets, $d, $d.age > 2 AND $d.dogName BEGINSWITH 'B').@count == 1").count == 1)
        #expect(dogs.filter("ANY walkers.fullName == 'Ann'").count == 2, "linking objects follow the mapped origin")
        #expect(rex.walkers.map(\.fullName) == ["Ann"])
        #expect(ann.pets.where { $0.age > 4 }.map(\.dogName) == ["Bo"])
        #expect(ann.pets.sorted(byKeyPath: "dogName").map(\.dogName) == ["Bo", "Rex"])
        #expect(ann.pets.sum(ofProperty: "age") as Int == 8)
    }

    @Test func keyValueCodingAndTheDynamicAPIUseTheSwiftNames() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try open(dir)
        let (_, rex) = try fill(realm)
        #expect(rex["dogName"] as? String == "Rex")
        let ann = try #require(realm.objects(MappedOwner.self).where { $0.fullName == "Ann" }.first)
        #expect(ann.dynamicList("pets").count == 2 && ann.dynamicList("pets")[0]["dogName"] as? String == "Rex")
        #expect(ann.dynamicMutableSet("tags").count == 1, "a set of values answers its count, as in Realm")
        #expect(realm.objects(MappedDog.self).sorted(byKeyPath: "age").value(forKey: "dogName") as? [String]
            == ["Rex", "Bo", "Ivy"])
        try realm.write {
            rex["age"] = 4
            realm.objects(MappedDog.self).setValue("Dog", forKey: "nickname")
            realm.create(MappedDog.self, value: ["dogName": "Max", "age": 1])
        }
        #expect(rex.age == 4 && rex.nickname == "Dog")
        let dynamic = try #require(realm.dynamicObjects("MappedDog").filter("dogName == 'Max'").first)
        #expect(dynamic["age"] as? Int == 1)
        try realm.write { dynamic["age"] = 2 }
        #expect(realm.objects(MappedDog.self).where { $0.dogName == "Max" }.first?.age == 2)
        try realm.write {
            dynamic.setValue(6, forUndefinedKey: "age")
            realm.objects(MappedOwner.self).where { $0.fullName == "Ann" }.first!.setValue("Bergen", forKeyPath: "address.cityName")
            realm.objects(MappedOwner.self).where { $0.fullName == "Bob" }.first!.setValue("x", forKeyPath: "address.cityName")
        }
        #expect(dynamic.value(forUndefinedKey: "age") as? Int == 6)
        #expect(realm.objects(MappedOwner.self).filter("address.cityName == 'Bergen'").count == 1)
        #expect(realm.objects(MappedOwner.self).where { $0.fullName == "Bob" }.first?.address == nil,
                "a nil link on the way sets nothing, as NSObject's key-value coding")
    }

    @Test func observersNameTheSwiftProperties() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try open(dir)
        let (_, rex) = try fill(realm)
        var names: [[String]] = []
        let token = rex.observe(keyPaths: ["dogName"]) { (change: ObjectChange<MappedDog>) in
            if case .change(_, let properties) = change { names.append(properties.map(\.name)) }
        }
        defer { token.invalidate() }
        var modified: [[Int]] = []
        let resultsToken = realm.objects(MappedDog.self).sorted(byKeyPath: "age").observe(keyPaths: ["age"]) { change in
            if case .update(_, _, _, let modifications) = change { modified.append(modifications) }
        }
        defer { resultsToken.invalidate() }
        #expect(spinRunLoop { true })
        try realm.write { rex.age = 1 }  // not watched by the object observer
        try realm.write { rex.dogName = "Rexy" }
        #expect(spinRunLoop { names == [["dogName"]] && modified == [[0]] })
    }

    @Test func renamingASwiftPropertyOverTheSameStoredNameNeedsNoMigration() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let config = dir.configuration(objectTypes: [MappedDog.self, MappedOwner.self, MappedAddress.self])
        let id: ObjectId
        do {
            let realm = try Realm(configuration: config)
            let (_, rex) = try fill(realm)
            id = rex.id
        }
        var renamed = config
        renamed.objectTypes = [RenamedModels.MappedDog.self]
        let realm = try Realm(configuration: renamed)
        let rex = try #require(realm.object(ofType: RenamedModels.MappedDog.self, forPrimaryKey: id))
        #expect(rex.name == "Rex" && rex.years == 3)
        #expect(realm.objects(RenamedModels.MappedDog.self).filter("years > 4").count == 2)
        #expect(realm.schema["MappedDog"]?["years"]?.columnName == "dog_age")
    }

    @Test func changingAStoredNameIsAMigration() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var config = dir.configuration(objectTypes: [MappedAddress.self, MappedHolder.self])
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(MappedHolder()) }
        }
        config.objectTypes = [MappedHolder2.self, MappedAddress.self]
        #expect {
            _ = try Realm(configuration: config)
        } throws: { error in
            "\(error)".contains("Migration is required") && "\(error)".contains("Property 'MappedHolder.count' has been removed.")
        }
    }

    @Test func twoPropertiesStoredUnderOneNameTrap() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = CollidingColumns().objectSchema
        }
    }
}

final class MappedHolder: Object {
    @Persisted var count: Int
    override class func propertiesMapping() -> [String: String] { ["count": "n"] }
}

final class MappedHolder2: Object {
    override class func className() -> String { "MappedHolder" }
    @Persisted var count: Int
    override class func propertiesMapping() -> [String: String] { ["count": "number"] }
}
