import Foundation
import Outpost
import OutpostTesting
import Testing

final class DynPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int?
    @Persisted var dogs: List<DynDog>
    @Persisted var pals: MutableSet<DynDog>
    @Persisted var byName: Map<String, DynDog?>
}

final class DynDog: Object {
    @Persisted var name: String
}

/// Realm's dynamic API: objects by class name as `DynamicObject`s, read and written by name, and the objects of a
/// Realm that has no Swift class for them in this process.
@Suite struct DynamicAPITests {
    let dir = TemporaryDirectory()

    @Test func readWriteAndCreateByName() throws {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [DynPerson.self, DynDog.self]))
        try realm.write {
            realm.create(DynPerson.self, value: ["id": 1, "name": "Ann", "age": 30, "dogs": [["name": "Rex"]]])
            realm.dynamicCreate("DynPerson", value: ["id": 2, "name": "Bob"])
        }
        let people = realm.dynamicObjects("DynPerson").sorted(byKeyPath: "id")
        #expect(people.count == 2)
        #expect(people[0]["name"] as? String == "Ann")
        #expect(people[0].name as? String == "Ann")
        #expect(people[1].age == nil)
        #expect(people.filter("name == %@", "Bob").first?["id"] as? Int == 2)
        let bob = try #require(realm.dynamicObject(ofType: "DynPerson", forPrimaryKey: 2))
        #expect(bob.objectSchema.className == "DynPerson")
        #expect(realm.dynamicObject(ofType: "DynPerson", forPrimaryKey: 3) == nil)

        try realm.write {
            bob.name = "Robert"
            bob["age"] = 41
        }
        #expect(realm.object(ofType: DynPerson.self, forPrimaryKey: 2)?.name == "Robert")
        #expect(realm.object(ofType: DynPerson.self, forPrimaryKey: 2)?.age == 41)

        // Collections of objects through the dynamic accessors hold DynamicObjects, live.
        let ann = try #require(realm.object(ofType: DynPerson.self, forPrimaryKey: 1))
        let dogs = ann.dynamicList("dogs")
        #expect(dogs.count == 1 && dogs[0]["name"] as? String == "Rex")
        try realm.write {
            let fido = realm.dynamicCreate("DynDog", value: ["name": "Fido"])
            dogs.append(fido)
            ann.dynamicMutableSet("pals").insert(fido)
            let map: Map<String, DynamicObject?> = ann.dynamicMap("byName")
            map["fido"] = fido
        }
        #expect(ann.dogs.map(\.name) == ["Rex", "Fido"])
        #expect(ann.pals.first?.name == "Fido")
        #expect(ann.byName["fido"]??.name == "Fido")
        #expect(people[0].dynamicList("dogs").count == 2)
    }

    @Test func mixedValuesHandOutTheirObjectDynamically() throws {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [DynPerson.self, DynDog.self]))
        let dog = try realm.write { realm.create(DynDog.self, value: ["name": "Rex"]) }
        #expect(AnyRealmValue.object(dog).dynamicObject?["name"] as? String == "Rex")
        #expect(AnyRealmValue.int(3).dynamicObject == nil)
        let token = NotificationToken()
        #expect(token.invalidate())
        #expect(!token.invalidate())
    }

    @Test func unknownClassesAndPropertiesTrapWithRealmsTexts() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration(objectTypes: [DynPerson.self, DynDog.self]))
            _ = realm.dynamicObjects("NoSuchClass")
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Object type 'NoSuchClass' not managed by the Realm"))
        }
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration(objectTypes: [DynPerson.self, DynDog.self]))
            try realm.write { realm.dynamicCreate("DynPerson", value: ["id": 1, "name": "Ann"]) }
            _ = realm.dynamicObjects("DynPerson")[0].nmae
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Invalid property name 'nmae' for class 'DynPerson'."))
        }
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration(objectTypes: [DynPerson.self, DynDog.self]))
            let person = try realm.write { realm.create(DynPerson.self, value: ["id": 1, "name": "Ann"]) }
            _ = person.dynamicList("name")
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Property 'DynPerson.name' is not a list"))
        }
    }

    @Test func aRealmWithoutSwiftClassesReadsDynamically() throws {
        let config = dir.configuration(objectTypes: [DynPerson.self, DynDog.self])
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.create(DynPerson.self, value: ["id": 7, "name": "Cy", "dogs": [["name": "Max"]]]) }
        }
        // The file read with only the dog's class: people have no Swift class here.
        var dogsOnly = config
        dogsOnly.objectTypes = [DynDog.self]
        let realm = try Realm(configuration: dogsOnly)
        #expect(realm.dynamicObjects("DynDog").count == 1)
        #expect(realm.dynamicObjects("DynDog")[0].name as? String == "Max")
    }
}
