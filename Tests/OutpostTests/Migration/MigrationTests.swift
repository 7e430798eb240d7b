import Foundation
import Outpost
import OutpostTesting
import Testing

/// A configuration for `dir`'s Realm with these classes, schema version and migration block.
func migrationConfig(
    _ dir: TemporaryDirectory, _ types: [ObjectBase.Type], version: UInt64 = 0,
    block: Realm.MigrationBlock? = nil
) -> Realm.Configuration {
    var configuration = dir.configuration(objectTypes: types)
    configuration.schemaVersion = version
    configuration.migrationBlock = block
    return configuration
}

/// Opens the Realm, writes in it and closes it again.
func seed(_ configuration: Realm.Configuration, _ body: (Realm) -> Void) throws {
    let realm = try Realm(configuration: configuration)
    try realm.write { body(realm) }
}

@Suite struct MigrationTests {
    @Test func renamePropertyKeepsData() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [RenameV1.self])) { realm in
            realm.create(RenameV1.self, value: ["name": "Ann", "yearsSinceBirth": 31])
            realm.create(RenameV1.self, value: ["name": "Bob", "yearsSinceBirth": 42])
        }
        let configuration = migrationConfig(dir, [RenameV2.self], version: 1) { migration, _ in
            migration.renameProperty(onType: "MigRename", from: "yearsSinceBirth", to: "age")
        }
        let realm = try Realm(configuration: configuration)
        let people = realm.objects(RenameV2.self).sorted(byKeyPath: "name")
        #expect(people.map(\.name) == ["Ann", "Bob"])
        #expect(people.map(\.age) == [31, 42])
        #expect(realm.schema["MigRename"]?["yearsSinceBirth"] == nil)
    }

    @Test func renameErrorsUseRealmsWording() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [RenameV1.self])) { realm in
            realm.create(RenameV1.self, value: ["name": "Ann", "yearsSinceBirth": 31])
        }
        let missing = migrationConfig(dir, [RenameV2.self], version: 1) { migration, _ in
            migration.renameProperty(onType: "MigRename", from: "nope", to: "age")
        }
        let error = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: missing) }
        #expect(error?.message == "Cannot rename property 'MigRename.nope' because it does not exist.")
        let retyped = migrationConfig(dir, [RenameV2.self], version: 1) { migration, _ in
            migration.renameProperty(onType: "MigRename", from: "yearsSinceBirth", to: "name")
        }
        let error2 = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: retyped) }
        #expect(error2?.message == "Cannot rename property 'MigRename.yearsSinceBirth' to 'name' because it would "
            + "change from type 'int' to 'string'.")
        #expect(try schemaVersionAtURL(dir.file()) == 0)
    }

    /// Realm's errors: a file not made yet is `.invalidDatabase` ("has not been initialized"), a device or a directory
    /// an access error.
    @Test func schemaVersionOfWhatIsNoRealm() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let missing = URL(fileURLWithPath: dir.file().path + ".none")
        let error = #expect(throws: Realm.Error.self) { _ = try schemaVersionAtURL(missing) }
        #expect(error?.code == .invalidDatabase)
        #expect(error?.message == "Realm at path '\(missing.path)' has not been initialized.")
        let device = #expect(throws: Realm.Error.self) { _ = try schemaVersionAtURL(URL(fileURLWithPath: "/dev/null")) }
        #expect(device?.code == .fileAccess)
        let directory = #expect(throws: Realm.Error.self) { _ = try schemaVersionAtURL(URL(fileURLWithPath: "/tmp")) }
        #expect(directory?.code == .fileAccess)
    }

    @Test func typeChangeNeedsBumpAndIsFilledByTheBlock() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [TypeV1.self])) { realm in
            realm.create(TypeV1.self, value: ["name": "Ann", "age": 31])
            realm.create(TypeV1.self, value: ["name": "Bob", "age": 42])
        }
        let error = #expect(throws: Realm.Error.self) {
            _ = try Realm(configuration: migrationConfig(dir, [TypeV2.self]))
        }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message == "Migration is required due to the following errors:\n"
            + "- Property 'MigType.age' has been changed from 'int' to 'string'.")

        let configuration = migrationConfig(dir, [TypeV2.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "MigType") { oldObject, newObject in
                let age = oldObject!["age"] as! Int
                newObject!["age"] = "\(age) years"
            }
        }
        let realm = try Realm(configuration: configuration)
        let people = realm.objects(TypeV2.self).sorted(byKeyPath: "name")
        #expect(people.map(\.age) == ["31 years", "42 years"])
        #expect(people.map(\.name) == ["Ann", "Bob"])
    }

    @Test func typeChangeWithoutBlockGetsTheDefault() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [TypeV1.self])) { realm in
            realm.create(TypeV1.self, value: ["name": "Ann", "age": 31])
        }
        let realm = try Realm(configuration: migrationConfig(dir, [TypeV2.self], version: 1))
        #expect(realm.objects(TypeV2.self).first?.age == "")
        #expect(realm.objects(TypeV2.self).first?.name == "Ann")
    }

    @Test func removedPropertyIsDroppedAndAddedOneGetsItsDefault() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [ShapeV1.self])) { realm in
            realm.create(ShapeV1.self, value: ["name": "Ann", "nickname": "A", "age": 31])
        }
        do {
            let realm = try Realm(configuration: migrationConfig(dir, [ShapeV2.self], version: 1))
            let shape = try #require(realm.objects(ShapeV2.self).first)
            #expect(shape.name == "Ann")
            #expect(shape.age == 31)
            #expect(shape.score == 0)
            #expect(shape.note == nil)
            #expect(realm.schema["MigShape"]?["nickname"] == nil)
        }
        // The new schema is stored: opening again needs no migration.
        let again = try Realm(configuration: migrationConfig(dir, [ShapeV2.self], version: 1))
        #expect(again.objects(ShapeV2.self).count == 1)
        #expect(try schemaVersionAtURL(dir.file()) == 1)
    }

    @Test func additiveChangesNeedNoBump() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [AddV1.self])) { realm in
            realm.create(AddV1.self, value: ["name": "Ann"])
        }
        let realm = try Realm(configuration: migrationConfig(dir, [AddV2.self, AddExtra.self]))
        let row = try #require(realm.objects(AddV2.self).first)
        #expect(row.name == "Ann")
        #expect(row.count == 0)
        #expect(row.note == nil)
        #expect(row.tags.isEmpty)
        #expect(row.when == Date(timeIntervalSince1970: 0))
        try realm.write {
            realm.create(AddExtra.self, value: ["title": "new class"])
            row.tags.append("x")
        }
        #expect(realm.objects(AddExtra.self).count == 1)
        #expect(try schemaVersionAtURL(dir.file()) == 0)
    }

    @Test func deleteRealmIfMigrationNeededDeletesTheData() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [ResetV1.self])) { realm in
            realm.create(ResetV1.self, value: ["value": 7])
        }
        var configuration = migrationConfig(dir, [ResetV2.self])
        configuration.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(ResetV2.self).isEmpty)
        try realm.write { realm.create(ResetV2.self, value: ["value": "seven"]) }
        #expect(realm.objects(ResetV2.self).first?.value == "seven")
    }

    @Test func lowerSchemaVersionFails() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [ResetV1.self], version: 2)) { realm in
            realm.create(ResetV1.self, value: ["value": 7])
        }
        let error = #expect(throws: Realm.Error.self) {
            _ = try Realm(configuration: migrationConfig(dir, [ResetV1.self], version: 1))
        }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message == "Provided schema version 1 is less than last set version 2.")
    }

    @Test func readOnlyRealmThatNeedsAMigrationFails() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [ResetV1.self])) { realm in
            realm.create(ResetV1.self, value: ["value": 7])
        }
        var configuration = migrationConfig(dir, [ResetV2.self], version: 1)
        configuration.readOnly = true
        let error = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: configuration) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message == "The following changes cannot be made in read-only schema mode:\n"
            + "- Property 'MigReset.value' has been changed from 'int' to 'string'.")
        var bumpOnly = migrationConfig(dir, [ResetV1.self], version: 1)
        bumpOnly.readOnly = true
        let error2 = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: bumpOnly) }
        #expect(error2?.message == "Provided schema version 1 does not equal last set version 0.")
        let realm = try Realm(configuration: migrationConfig(dir, [ResetV1.self]))
        #expect(realm.objects(ResetV1.self).first?.value == 7)
    }

    @Test func optionalMadeRequiredGetsTheDefault() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try seed(migrationConfig(dir, [RequiredV1.self])) { realm in
            realm.create(RequiredV1.self, value: ["nick": "A", "level": 3])
            realm.create(RequiredV1.self, value: [:])
        }
        let realm = try Realm(configuration: migrationConfig(dir, [RequiredV2.self], version: 1))
        let rows = realm.objects(RequiredV2.self).sorted(byKeyPath: "level")
        #expect(rows.map(\.nick) == ["", "A"])
        #expect(rows.map(\.level) == [0, 3])
    }
}
