import Foundation
import Outpost
import OutpostTesting
import Testing

/// The migration block: deleting a class's data, enumerating old and new objects, creating and deleting objects,
/// removed classes, and what a failure inside the block or after it leaves.
extension MigrationTests {
    @Test func deleteData() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [KeepV1.self, GoneV1.self])) { realm in
            realm.create(KeepV1.self, value: ["name": "kept"])
            realm.create(GoneV1.self, value: ["name": "gone"])
        }
        var results: [Bool] = []
        var enumeratedGone = 0
        let configuration = migrationConfig(dir, [KeepV2.self], version: 1) { migration, _ in
            results.append(migration.deleteData(forType: "MigKeep"))
            results.append(migration.deleteData(forType: "MigGone"))
            results.append(migration.deleteData(forType: "MigNothing"))
            migration.enumerateObjects(ofType: "MigGone") { _, _ in enumeratedGone += 1 }
        }
        do {
            let realm = try Realm(configuration: configuration)
            #expect(realm.objects(KeepV2.self).isEmpty)
        }
        #expect(results == [true, true, false])
        #expect(enumeratedGone == 0)
        // The removed class's table went with its data: it comes back empty.
        let realm = try Realm(configuration: migrationConfig(dir, [KeepV2.self, GoneV1.self], version: 1))
        #expect(realm.objects(GoneV1.self).isEmpty)
    }

    /// Realm's order of events in one migration of an unchanged class: the old objects are enumerated (3), then
    /// deleted; an object created afterwards is new, so enumerating again sees none.
    @Test func enumerateAfterDeleteDataAndCreate() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [KeepV1.self])) { realm in
            for name in ["1", "2", "3"] { realm.create(KeepV1.self, value: ["name": name]) }
        }
        var counts: [Int] = []
        let configuration = migrationConfig(dir, [KeepV1.self], version: 1) { migration, _ in
            var count = 0
            migration.enumerateObjects(ofType: "MigKeep") { _, _ in count += 1 }
            counts.append(count)
            migration.deleteData(forType: "MigKeep")
            migration.create("MigKeep", value: ["name": "A"])
            count = 0
            migration.enumerateObjects(ofType: "MigKeep") { _, _ in count += 1 }
            counts.append(count)
        }
        let realm = try Realm(configuration: configuration)
        #expect(counts == [3, 0])
        #expect(realm.objects(KeepV1.self).map(\.name) == ["A"])
    }

    @Test func removedClassKeepsItsDataUnlessDeleted() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [KeepV1.self, GoneV1.self])) { realm in
            realm.create(GoneV1.self, value: ["name": "still here"])
        }
        var seen: [String] = []
        let configuration = migrationConfig(dir, [KeepV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigGone") { oldObject, newObject in
                seen.append(oldObject?["name"] as? String ?? "?")
                #expect(newObject == nil)
            }
        }
        _ = try Realm(configuration: configuration)
        #expect(seen == ["still here"])
        let realm = try Realm(configuration: migrationConfig(dir, [KeepV2.self, GoneV1.self], version: 1))
        #expect(realm.objects(GoneV1.self).first?.name == "still here")
    }

    @Test func createAndDeleteInAMigration() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [CrowdV1.self])) { realm in
            for (name, age) in [("Ann", 31), ("Kid", 9), ("Bob", 42)] {
                realm.create(CrowdV1.self, value: ["name": name, "age": age])
            }
        }
        let configuration = migrationConfig(dir, [CrowdV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigCrowd") { oldObject, newObject in
                guard let newObject else { return }
                if (oldObject?["age"] as? Int ?? 0) < 18 {
                    migration.delete(newObject)
                } else {
                    newObject["adult"] = true
                }
            }
            let zed = migration.create("MigCrowd", value: ["name": "Zed", "age": 50])
            zed["adult"] = true
            migration.create("MigCrowd", value: ["name": "Tim"])
        }
        let realm = try Realm(configuration: configuration)
        let crowd = realm.objects(CrowdV2.self).sorted(byKeyPath: "name")
        #expect(crowd.map(\.name) == ["Ann", "Bob", "Tim", "Zed"])
        #expect(crowd.map(\.adult) == [true, true, false, true])
        #expect(crowd.map(\.age) == [31, 42, 0, 50])
    }

    @Test func enumerateSeesOldAndNewValues() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let token = ObjectId.generate()
        let born = Date(timeIntervalSince1970: 1_000_000)
        try seed(migrationConfig(dir, [WalkOwnerV1.self])) { realm in
            let rex = realm.create(WalkDogV1.self, value: ["name": "Rex", "age": 3])
            let fido = realm.create(WalkDogV1.self, value: ["name": "Fido", "age": 5])
            let owner = realm.create(WalkOwnerV1.self, value: [
                "firstName": "Ann", "lastName": "Lee", "scores": [3, 1, 2], "born": born, "token": token,
            ])
            owner.dog = rex
            owner.dogs.append(objectsIn: [rex, fido])
        }
        var versions: [UInt64] = []
        var oldNames: [String] = []
        var oldDogName: String?
        var oldDogNames: [String] = []
        var oldScores: [Int] = []
        var newValuesBefore: [String: String] = [:]
        var oldSchemaHadFirstName = false
        var newSchemaHasFullName = false
        let configuration = migrationConfig(dir, [WalkOwnerV2.self], version: 3) { migration, oldSchemaVersion in
            versions.append(oldSchemaVersion)
            oldSchemaHadFirstName = migration.oldSchema["MigWalkOwner"]?["firstName"] != nil
            newSchemaHasFullName = migration.newSchema["MigWalkOwner"]?["fullName"] != nil
            migration.enumerateObjects(ofType: "MigWalkOwner") { oldObject, newObject in
                guard let oldObject, let newObject else { return }
                let first = oldObject["firstName"] as! String
                let last = oldObject["lastName"] as! String
                oldNames.append("\(first) \(last)")
                oldDogName = (oldObject["dog"] as? DynamicObject)?["name"] as? String
                let dogs = oldObject["dogs"] as? [Any] ?? []
                oldDogNames = dogs.compactMap { ($0 as? DynamicObject)?["name"] as? String }
                oldScores = oldObject["scores"] as? [Int] ?? []
                #expect(oldObject["born"] as? Date == born)
                #expect(oldObject["token"] as? ObjectId == token)
                newValuesBefore["fullName"] = newObject["fullName"] as? String
                newObject["fullName"] = "\(first) \(last)"
                #expect(newObject["fullName"] as? String == "Ann Lee")
                #expect((newObject["dog"] as? DynamicObject)?["age"] as? String == "")
            }
            migration.enumerateObjects(ofType: "MigWalkDog") { oldObject, newObject in
                newObject?["age"] = String(oldObject?["age"] as? Int ?? -1)
            }
            migration.enumerateObjects(ofType: "MigNoSuchClass") { _, _ in Issue.record("no objects expected") }
        }
        let realm = try Realm(configuration: configuration)
        #expect(versions == [0])
        #expect(oldNames == ["Ann Lee"])
        #expect(oldDogName == "Rex")
        #expect(oldDogNames == ["Rex", "Fido"])
        #expect(oldScores == [3, 1, 2])
        #expect(newValuesBefore["fullName"] == "")
        #expect(oldSchemaHadFirstName && newSchemaHasFullName)
        let owner = try #require(realm.objects(WalkOwnerV2.self).first)
        #expect(owner.fullName == "Ann Lee")
        #expect(owner.dog?.name == "Rex")
        #expect(owner.dog?.age == "3")
        #expect(owner.dogs.map(\.age) == ["3", "5"])
        #expect(Array(owner.scores) == [3, 1, 2])
        #expect(owner.born == born)
        #expect(owner.token == token)
    }

    @Test func oldSchemaVersionIsPassedAndBlockRunsOnBumpAlone() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [ResetV1.self], version: 1)) { realm in
            realm.create(ResetV1.self, value: ["value": 7])
        }
        var calls: [UInt64] = []
        let configuration = migrationConfig(dir, [ResetV1.self], version: 4) { migration, oldSchemaVersion in
            calls.append(oldSchemaVersion)
            migration.enumerateObjects(ofType: "MigReset") { oldObject, newObject in
                newObject?["value"] = (oldObject?["value"] as? Int ?? 0) * 10
            }
        }
        try Realm.performMigration(for: configuration)
        do {
            let realm = try Realm(configuration: configuration)
            #expect(realm.objects(ResetV1.self).first?.value == 70)
        }
        #expect(calls == [1])
        #expect(try schemaVersionAtURL(dir.file()) == 4)
        _ = try Realm(configuration: configuration)
        #expect(calls == [1])
    }

    @Test func failureInsideTheBlockLeavesTheFileUnchanged() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [FailV1.self])) { realm in
            realm.create(FailV1.self, value: ["name": "Ann", "age": 31])
        }
        let wrongType = migrationConfig(dir, [FailV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigFail") { _, newObject in
                newObject?["nickname"] = "A"
                newObject?["age"] = "thirty-one"
            }
        }
        let error = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: wrongType) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("'MigFail.age'") == true)
        #expect(error?.message.contains("thirty-one") == true)

        let unknown = migrationConfig(dir, [FailV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigFail") { _, newObject in newObject?["nope"] = 1 }
        }
        let error2 = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: unknown) }
        #expect(error2?.message == "Invalid property name 'nope' for class 'MigFail'.")

        // Unchanged: the old schema opens without a migration, with its data and version.
        #expect(try schemaVersionAtURL(dir.file()) == 0)
        do {
            let realm = try Realm(configuration: migrationConfig(dir, [FailV1.self]))
            #expect(realm.objects(FailV1.self).map(\.age) == [31])
            #expect(realm.objects(FailV1.self).map(\.name) == ["Ann"])
        }
        // And a correct migration still works afterwards.
        let fixed = migrationConfig(dir, [FailV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigFail") { _, newObject in newObject?["nickname"] = "A" }
        }
        let realm = try Realm(configuration: fixed)
        #expect(realm.objects(FailV2.self).map(\.nickname) == ["A"])
        #expect(realm.objects(FailV2.self).map(\.age) == [31])
    }

    @Test func duplicatePrimaryKeysAfterMigrationFail() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [KeyV1.self])) { realm in
            realm.create(KeyV1.self, value: ["code": 1, "name": "a"])
            realm.create(KeyV1.self, value: ["code": 1, "name": "b"])
            realm.create(KeyV1.self, value: ["code": 2, "name": "c"])
        }
        let error = #expect(throws: Realm.Error.self) {
            _ = try Realm(configuration: migrationConfig(dir, [KeyV2.self], version: 1))
        }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message == "Primary key property 'MigKey.code' has duplicate values after migration.")
        #expect(try schemaVersionAtURL(dir.file()) == 0)

        let fixed = migrationConfig(dir, [KeyV2.self], version: 1) { migration, _ in
            var next = 10
            migration.enumerateObjects(ofType: "MigKey") { _, newObject in
                newObject?["code"] = next
                next += 1
            }
        }
        let realm = try Realm(configuration: fixed)
        #expect(realm.objects(KeyV2.self).sorted(byKeyPath: "code").map(\.code) == [10, 11, 12])
        #expect(realm.object(ofType: KeyV2.self, forPrimaryKey: 11)?.name == "b")
        // The primary key is enforced again after the migration.
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(KeyV2.self, value: ["code": 11, "name": "dup"]) }
        }
    }


    @Test func collectionsAndAnyRealmValueThroughDynamicObjects() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [BagV1.self, BagTagV1.self])) { realm in
            let tag = realm.create(BagTagV1.self, value: ["label": "red"])
            let bag = realm.create(BagV1.self, value: ["tags": ["a", "b"], "prices": ["eur": 1.5], "level": 2])
            bag.anything = .object(tag)
        }
        var oldPrices: [String: Any] = [:]
        var oldLabel: String?
        let configuration = migrationConfig(dir, [BagV2.self, BagTagV1.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigBag") { oldObject, newObject in
                guard let oldObject, let newObject else { return }
                oldPrices = oldObject["prices"] as? [String: Any] ?? [:]
                oldLabel = (oldObject["anything"] as? DynamicObject)?["label"] as? String
                let tags = oldObject["tags"] as? [String] ?? []
                newObject["labels"] = tags + ["c"]
                newObject["tags"] = Array(tags.reversed())
                newObject["prices"] = ["usd": 2.0]
                newObject["level"] = "level \(oldObject["level"] as? Int ?? 0)"
                #expect((newObject["anything"] as? DynamicObject)?["label"] as? String == "red")
            }
        }
        let realm = try Realm(configuration: configuration)
        #expect(oldPrices["eur"] as? Double == 1.5)
        #expect(oldLabel == "red")
        let bag = try #require(realm.objects(BagV2.self).first)
        #expect(Array(bag.tags) == ["b", "a"])
        #expect(Set(bag.labels) == ["a", "b", "c"])
        #expect(bag.prices["usd"] == 2.0)
        #expect(bag.prices["eur"] == nil)
        #expect(bag.level == "level 2")
        #expect((bag.anything.object(BagTagV1.self))?.label == "red")
    }
}
