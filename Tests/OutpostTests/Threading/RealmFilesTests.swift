import Foundation
import Outpost
import OutpostTesting
import Testing

@Suite struct RealmFilesTests {
    @Test func writeCopyToAConfigurationAndFileExists() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        #expect(!Realm.fileExists(for: configuration))
        let realm = try Realm(configuration: configuration)
        #expect(Realm.fileExists(for: configuration))
        try ThreadingFixture.seed(realm, count: 3)
        let target = ThreadingFixture.configuration(dir, "copy.realm")
        #expect(!Realm.fileExists(for: target))
        try realm.writeCopy(configuration: target)
        #expect(Realm.fileExists(for: target))
        #expect(try Realm(configuration: target).objects(TSPerson.self).count == 3)
        // The target must not exist yet.
        #expect(throws: Realm.Error.self) { try realm.writeCopy(configuration: target) }
        var memory = Realm.Configuration()
        memory.inMemoryIdentifier = "files-exist"
        #expect(!Realm.fileExists(for: memory))
    }

    @Test func aSeedFileIsCopiedOnFirstOpenOnly() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = try Realm(configuration: ThreadingFixture.configuration(dir, "source.realm"))
        try ThreadingFixture.seed(source, count: 2)
        let seed = dir.file("seed.realm")
        try source.writeCopy(toFile: seed)
        var configuration = ThreadingFixture.configuration(dir, "app.realm")
        configuration.seedFilePath = seed
        let app = try Realm(configuration: configuration)
        #expect(app.objects(TSPerson.self).count == 2)
        try app.write { app.add(TSPerson(id: 3, name: "p3")) }
        // The file exists now: opening again keeps its contents.
        let again = try DispatchQueue(label: "again").sync { try Realm(configuration: configuration).objects(TSPerson.self).count }
        #expect(again == 3)
        var missing = ThreadingFixture.configuration(dir, "other.realm")
        missing.seedFilePath = dir.file("no-such-seed.realm")
        #expect(throws: Realm.Error.self) { try Realm(configuration: missing) }
    }

    @Test func beginWriteOnAReadOnlyRealmTrapsWithRealmsText() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            try ThreadingFixture.seed(try Realm(configuration: ThreadingFixture.configuration(dir)), count: 1)
            var readOnly = ThreadingFixture.configuration(dir)
            readOnly.readOnly = true
            let realm = try Realm(configuration: readOnly)
            realm.beginWrite()
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Can't perform transactions on read-only Realms."))
        }
    }

    @Test func writeOnAReadOnlyRealmThrows() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try ThreadingFixture.seed(try Realm(configuration: ThreadingFixture.configuration(dir)), count: 1)
        var readOnly = ThreadingFixture.configuration(dir)
        readOnly.readOnly = true
        let realm = try Realm(configuration: readOnly)
        #expect(throws: Realm.Error.self) { try realm.write {} }
        #expect(!realm.isInWriteTransaction)
    }

    @Test func writeCopyWritesTheCurrentVersion() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        try ThreadingFixture.seed(realm, count: 5)
        let copyURL = dir.file("copy.realm")
        try realm.writeCopy(toFile: copyURL)
        // Inside a write transaction, the copy is the version the write started from (Realm would
        // include the uncommitted changes: a documented difference).
        let inWriteURL = dir.file("in-write.realm")
        try realm.write {
            realm.add(TSPerson(id: 6, name: "p6"))
            try realm.writeCopy(toFile: inWriteURL)
        }
        let copy = try Realm(configuration: ThreadingFixture.configuration(dir, "copy.realm"))
        #expect(copy.objects(TSPerson.self).count == 5)
        #expect(copy.object(ofType: TSPerson.self, forPrimaryKey: 3)?.dogs.map(\.name) == ["d3-0", "d3-1"])
        let inWrite = try Realm(configuration: ThreadingFixture.configuration(dir, "in-write.realm"))
        #expect(inWrite.objects(TSPerson.self).count == 5)
        // The copy is an ordinary writable Realm.
        try copy.write { copy.add(TSPerson(id: 10, name: "copy")) }
        #expect(copy.objects(TSPerson.self).count == 6)
        #expect(realm.objects(TSPerson.self).count == 6)
        // A frozen Realm can be copied too.
        let frozenURL = dir.file("frozen.realm")
        try realm.freeze().writeCopy(toFile: frozenURL)
        #expect(try Realm(configuration: ThreadingFixture.configuration(dir, "frozen.realm")).objects(TSPerson.self).count == 6)
    }

    @Test func writeCopyToAnExistingFileFails() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        let target = dir.file("exists.realm")
        try Data("keep".utf8).write(to: target)
        #expect(throws: Realm.Error.self) { try realm.writeCopy(toFile: target) }
        do {
            try realm.writeCopy(toFile: target)
        } catch Realm.Error.fileExists {
            // expected
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(try Data(contentsOf: target) == Data("keep".utf8))
        // Into a directory that does not exist: a file access error, and nothing left behind.
        let missing = dir.url.appendingPathComponent("no/such/dir/copy.realm")
        do {
            try realm.writeCopy(toFile: missing)
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .fileAccess)
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func deleteFiles() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        #expect(try Realm.deleteFiles(for: configuration) == false)
        let box = UncheckedSendable(configuration)
        ThreadingFixture.onNewThread {
            // Opened and released on a thread of its own, so no instance stays open.
            let realm = try! Realm(configuration: box.value)
            try! ThreadingFixture.seed(realm, count: 1)
        }
        #expect(FileManager.default.fileExists(atPath: dir.file().path))
        #expect(try Realm.deleteFiles(for: configuration) == true)
        #expect(!FileManager.default.fileExists(atPath: dir.file().path))
        #expect(!FileManager.default.fileExists(atPath: dir.file().path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: dir.file().path + "-shm"))
    }

    @Test func deleteFilesOfAnOpenRealmFails() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        var realm: Realm? = try Realm(configuration: configuration)
        try ThreadingFixture.seed(realm!, count: 1)
        do {
            try Realm.deleteFiles(for: configuration)
            Issue.record("expected .alreadyOpen")
        } catch Realm.Error.alreadyOpen {
            // expected
        }
        #expect(FileManager.default.fileExists(atPath: dir.file().path))
        // A frozen Realm keeps the file open as well.
        var frozen: Realm? = realm!.freeze()
        realm = nil
        #expect(throws: Realm.Error.self) { try Realm.deleteFiles(for: configuration) }
        #expect(frozen!.objects(TSPerson.self).count == 1)
        frozen = nil
        #expect(try Realm.deleteFiles(for: configuration) == true)
    }

    @Test func invalidateReleasesTheVersionAndObjects() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        try ThreadingFixture.seed(realm, count: 2)
        let results = realm.objects(TSPerson.self)
        let person = results.first!
        #expect(results.count == 2)
        ThreadingFixture.onNewThread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.add(TSPerson(id: 3, name: "p3")) }
        }
        #expect(results.count == 2)
        realm.invalidate()
        // After invalidate the Realm reads the latest version on next access.
        #expect(results.count == 3)
        #expect(realm.objects(TSPerson.self).count == 3)
        #expect(person.isInvalidated)
        #expect(realm.objects(TSPerson.self).first!.name == "p1")
        #expect(!realm.objects(TSPerson.self).first!.isInvalidated)
        // invalidate inside a write transaction cancels it.
        realm.beginWrite()
        realm.add(TSPerson(id: 4, name: "p4"))
        realm.invalidate()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(TSPerson.self).count == 3)
    }

    @Test func usingAnObjectAfterInvalidateTraps() async throws {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
            try ThreadingFixture.seed(realm, count: 1)
            let person = realm.objects(TSPerson.self).first!
            realm.invalidate()
            _ = person.name
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Object has been deleted or invalidated."))
        }
    }
}
