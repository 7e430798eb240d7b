import Foundation
import Outpost
import OutpostTesting
import Testing

/// Bad input to the database's public entry points: each gets a typed error that says what and where,
/// and nothing of a failed transaction is stored.
@Suite struct BadInputTests {
    @Test func aFileThatIsNotAnOutpostDatabaseIsRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try Data("this is not a database, just text that is long enough to be a header ......".utf8)
            .write(to: dir.file("junk.realm"))
        #expect {
            _ = try Realm(configuration: dir.configuration("junk.realm"))
        } throws: { error in
            guard let error = error as? Realm.Error else { return false }
            return error.code == .invalidDatabase && error.message.contains("junk.realm")
        }
    }

    /// Realm's codes and texts for a file that cannot be a Realm: a short non-empty file (SQLite would take it
    /// for an empty database and overwrite it), a path under a file, a read-only open of nothing.
    @Test func openErrorsAreRealms() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try Data("a".utf8).write(to: dir.file("short.realm"))
        func error(_ configuration: Realm.Configuration) -> Realm.Error? {
            do {
                _ = try Realm(configuration: configuration)
                return nil
            } catch { return error as? Realm.Error }
        }
        let short = error(dir.configuration("short.realm"))
        #expect(short?.code == .invalidDatabase)
        #expect(short?.message == "Failed to open Realm file at path '\(dir.file("short.realm").path)': file is non-empty but too small (1 bytes) to be a valid Realm.")
        #expect(try Data(contentsOf: dir.file("short.realm")) == Data("a".utf8))

        var underAFile = Realm.Configuration()
        underAFile.fileURL = dir.file("short.realm").appendingPathComponent("x.realm")
        let notADirectory = error(underAFile)
        #expect(notADirectory?.code == .fileOperationFailed)
        #expect(notADirectory?.message == "Failed to open file at path '\(underAFile.fileURL!.path).lock': parent path is not a directory")

        var readOnly = dir.configuration("missing.realm")
        readOnly.readOnly = true
        let missing = error(readOnly)
        #expect(missing?.code == .fileNotFound)
        #expect(missing?.message == "Failed to open Realm file at path '\(dir.file("missing.realm").path)': No such file or directory")
    }

    @Test func aCopyWrittenByWriteCopyOpensWithItsData() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration("a.realm"))
        try realm.write { realm.create(Owner.self, value: ["id": 1, "name": "Ann"]) }
        try realm.writeCopy(toFile: dir.file("copy.realm"))
        let copy = try Realm(configuration: dir.configuration("copy.realm"))
        #expect(copy.objects(Owner.self).first?.name == "Ann")
    }

    @Test func readOnlyOpenOfAMissingFileIsFileNotFound() {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var configuration = dir.configuration("missing.realm")
        configuration.readOnly = true
        do {
            _ = try Realm(configuration: configuration)
            Issue.record("expected an error")
        } catch Realm.Error.fileNotFound {
            // matched by code, as with Realm
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aMissingDirectoryIsFileNotFound() {
        var configuration = Realm.Configuration()
        configuration.fileURL = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/x.realm")
        #expect(throws: Realm.Error.self) { _ = try Realm(configuration: configuration) }
    }

    @Test func encryptionKeyIsRefusedClearly() {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var configuration = dir.configuration()
        configuration.encryptionKey = Data(count: 64)
        do {
            _ = try Realm(configuration: configuration)
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("encryptionKey"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// As in Realm: a key that names no property is left out (JSON often carries more than the model holds).
    @Test func unknownPropertyInCreateIsIgnored() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write {
            realm.create(Owner.self, value: ["id": 1, "name": "Ann", "nickname": "A", "extra": [1, 2]])
        }
        #expect(realm.objects(Owner.self).first?.name == "Ann")
    }

    @Test func wrongValueTypeInCreateFailsTheWrite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        do {
            try realm.write { realm.create(Owner.self, value: ["id": 1, "name": 42]) }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("'Owner.name'"))
            #expect(error.message.contains("42"))
        }
        #expect(realm.objects(Owner.self).isEmpty)
    }

    @Test func nullForARequiredPropertyFailsTheWrite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(Owner.self, value: ["id": 1, "name": NSNull()]) }
        }
        #expect(realm.objects(Owner.self).isEmpty)
    }

    @Test func arrayInputWithMoreValuesThanPropertiesFailsTheWrite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        do {
            try realm.write { realm.create(Dog.self, value: ["Rex", 3, "extra"]) }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.message == "Invalid array input: more values (3) than properties (2).")
        }
        #expect(realm.objects(Dog.self).isEmpty)
    }

    @Test func changingAPrimaryKeyFailsTheWrite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let owner = Owner()
        owner.id = 1
        try realm.write { realm.add(owner) }
        #expect(throws: Realm.Error.self) {
            try realm.write {
                owner.name = "changed"
                owner.id = 2
            }
        }
        #expect(owner.id == 1)
        #expect(owner.name == "")
    }

    @Test func updatePolicyNeedsAPrimaryKey() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        do {
            try realm.write { realm.add(Dog(), update: .modified) }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.message == "'Dog' does not have a primary key and can not be updated")
        }
    }

    @Test func throwingInsideWriteRollsBack() throws {
        struct Stop: Error {}
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        #expect(throws: Stop.self) {
            try realm.write {
                realm.create(Owner.self, value: ["id": 1])
                throw Stop()
            }
        }
        #expect(realm.objects(Owner.self).isEmpty)
        #expect(!realm.isInWriteTransaction)
    }

    @Test func writingOutsideAWriteTransactionTraps() async {
        await #expect(processExitsWith: .failure) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration())
            let owner = Owner()
            try realm.write { realm.add(owner) }
            owner.name = "outside"
        }
    }

    @Test func accessingADeletedObjectTraps() async {
        await #expect(processExitsWith: .failure) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration())
            let owner = Owner()
            try realm.write { realm.add(owner) }
            try realm.write { realm.delete(owner) }
            _ = owner.name
        }
    }

    @Test func malformedQueryTextTrapsWithPositionAndToken() async {
        await #expect(processExitsWith: .failure) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: dir.configuration())
            _ = realm.objects(Owner.self).filter("age >> 5").count
        }
    }

    @Test func deletedObjectsReportInvalidated() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let dog = Dog()
        try realm.write { realm.add(dog) }
        #expect(!dog.isInvalidated)
        try realm.write { realm.delete(dog) }
        #expect(dog.isInvalidated)
    }

    /// Realm raises "Adding a deleted or invalidated object to a Realm is not permitted"; here the write throws it
    /// and nothing of it is kept (before, the stale object was taken as already added and the write went on).
    @Test func addingADeletedObjectFailsTheWrite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let owner = Owner()
        owner.id = 1
        try realm.write { realm.add(owner) }
        try realm.write { realm.delete(owner) }
        for update in [Realm.UpdatePolicy.error, .modified] {
            do {
                try realm.write {
                    realm.create(Owner.self, value: ["id": 2])
                    realm.add(owner, update: update)
                }
                Issue.record("expected an error")
            } catch let error as Realm.Error {
                #expect(error.code == .invalidInput)
                #expect(error.message == "Adding a deleted or invalidated object to a Realm is not permitted")
            }
        }
        // Deleted and added again in one write.
        let dog = Dog()
        try realm.write { realm.add(dog) }
        #expect(throws: Realm.Error.self) {
            try realm.write {
                realm.delete(dog)
                realm.add(dog)
            }
        }
        #expect(realm.objects(Owner.self).isEmpty)
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func writeCopyRefusesAnExistingFile() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try Data().write(to: dir.file("exists.realm"))
        do {
            try realm.writeCopy(toFile: dir.file("exists.realm"))
            Issue.record("expected an error")
        } catch Realm.Error.fileExists {
        }
    }
}
