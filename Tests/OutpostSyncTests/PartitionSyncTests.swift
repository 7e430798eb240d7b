import Foundation
@testable import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// A partition-based model: the partition key is a property, as many Realm apps have it.
final class Note: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var _partition: String
    @Persisted var text: String
    @Persisted var tags: List<String>
}

/// Partition keys of the other types a partition value may have.
final class IntNote: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var _partition: Int
    @Persisted var text: String
}

final class ObjectIdNote: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var _partition: ObjectId
    @Persisted var text: String
}

final class UUIDNote: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var _partition: UUID
    @Persisted var text: String
}

func partitionServerApp(appId: String = "pbs-app", type: String = "string") throws -> AppDefinition {
    try AppDefinition(jsonText: """
        {
          "app_id": "\(appId)",
          "auth": { "anonymous": { "enabled": true } },
          "sync": { "mode": "partition", "development_mode_enabled": true,
                    "partition": { "key": "_partition", "type": "\(type)",
                                   "permissions": { "read": true, "write": true } } }
        }
        """)
}

@Suite(.timeLimit(.minutes(3))) struct PartitionSyncTests {
    /// A partition the user may not read: the server refuses the session (206), the error handler gets
    /// `.permissionDeniedError` with a token from `deleteRealmUserInfo()` (and no client-reset info), and
    /// `immediatelyHandleError` deletes the file once its Realms are closed.
    @Test func aPartitionTheUserMayNotReadGivesATokenThatDeletesTheFile() async throws {
        let config = try AppDefinition(jsonText: """
            { "app_id": "pbs-denied", "auth": { "anonymous": { "enabled": true } },
              "sync": { "mode": "partition", "development_mode_enabled": true,
                        "partition": { "key": "_partition", "type": "string",
                                       "permissions": { "read": { "%%partition": "%%user.id" }, "write": true } } } }
            """)
        try await withTestServer(configuration: config) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                let user = try await app.login(credentials: .anonymous)
                var configuration = user.configuration(partitionValue: "someone-else")
                configuration.objectTypes = [Note.self]
                let path = configuration.fileURL!.path
                do {
                    let realm = try await Realm(configuration: configuration)
                    try await eventually(timeout: .seconds(30), "the refusal") { realm.syncSession?.state == .invalid }
                }
                let error = try #require(try await reports.waitForErrors(1).first)
                #expect(error.code == .permissionDeniedError)
                #expect(error.protocolErrorCode == 206)
                #expect(error.clientResetInfo() == nil)
                let token = try #require(error.deleteRealmUserInfo())
                #expect(error.errorUserInfo["error_action_token"] != nil)
                #expect(FileManager.default.fileExists(atPath: path))
                SyncSession.immediatelyHandleError(token, syncManager: app.syncManager)
                #expect(!FileManager.default.fileExists(atPath: path))
            }
        }
    }

    @Test func partitionsSyncBetweenDevicesAndStayIsolated() async throws {
        try await withTestServer(configuration: try partitionServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                var configA = user.configuration(partitionValue: "team-a")
                configA.objectTypes = [Note.self]
                #expect(configA.fileURL!.lastPathComponent.hasSuffix(".realm"))
                #expect(configA.syncConfiguration?.partitionValue == .string("team-a"))
                let deviceA = try await Realm(configuration: configA)
                var configA2 = configA
                configA2.fileURL = configA.fileURL!.deletingLastPathComponent().appendingPathComponent("a2.realm")
                let deviceA2 = try await Realm(configuration: configA2)
                var configB = user.configuration(partitionValue: "team-b")
                configB.objectTypes = [Note.self]
                let deviceB = try await Realm(configuration: configB)

                let note = Note()
                note._partition = "team-a"
                note.text = "hello"
                note.tags.append(objectsIn: ["x", "y"])
                let id = note._id
                try deviceA.write { deviceA.add(note) }
                try await deviceA.syncSession!.wait(for: .upload)
                try await deviceA2.syncSession!.wait(for: .download)
                deviceA2.refresh()
                let copy = try #require(deviceA2.object(ofType: Note.self, forPrimaryKey: id))
                #expect(copy.text == "hello")
                #expect(Array(copy.tags) == ["x", "y"])

                // An update and a list change flow back.
                try deviceA2.write {
                    copy.text = "edited"
                    copy.tags.append("z")
                }
                try await deviceA2.syncSession!.wait(for: .upload)
                try await deviceA.syncSession!.wait(for: .download)
                deviceA.refresh()
                #expect(note.text == "edited")
                #expect(Array(note.tags) == ["x", "y", "z"])

                // Partition B sees nothing of A.
                try await deviceB.syncSession!.wait(for: .download)
                deviceB.refresh()
                #expect(deviceB.objects(Note.self).isEmpty)

                // A delete syncs.
                try deviceA.write { deviceA.delete(note) }
                try await deviceA.syncSession!.wait(for: .upload)
                try await deviceA2.syncSession!.wait(for: .download)
                deviceA2.refresh()
                #expect(deviceA2.objects(Note.self).isEmpty)
            }
        }
    }

    /// Int, ObjectId and UUID partition values sync between two files of one partition and stay out of another.
    @Test(arguments: ["int", "objectId", "uuid"]) func typedPartitionValuesSyncAndStayIsolated(type: String) async throws {
        switch type {
        case "int":
            try await Self.checkPartitions(IntNote.self, type: type, value: .int64(42), other: .int64(7), text: { $0.text }) { text in
                let note = IntNote()
                note._partition = 42
                note.text = text
                return note
            }
        case "objectId":
            let id = ObjectId.generate()
            try await Self.checkPartitions(ObjectIdNote.self, type: type, value: .objectId(id), other: .objectId(.generate()), text: { $0.text }) { text in
                let note = ObjectIdNote()
                note._partition = id
                note.text = text
                return note
            }
        default:
            let id = UUID()
            try await Self.checkPartitions(UUIDNote.self, type: type, value: .uuid(id), other: .uuid(UUID()), text: { $0.text }) { text in
                let note = UUIDNote()
                note._partition = id
                note.text = text
                return note
            }
        }
    }

    /// Device A writes an object made by `make` in partition `value`; a second file of that partition gets it, a file
    /// of partition `other` does not.
    static func checkPartitions<T: Object>(
        _ model: T.Type, type: String, value: AnyBSON, other: AnyBSON, text: (T) -> String, make: (String) -> T
    ) async throws {
        try await withTestServer(configuration: try partitionServerApp(appId: "pbs-\(type)", type: type)) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                let user = try await app.login(credentials: .anonymous)
                var configA = user.configuration(partitionValue: value)
                configA.objectTypes = [model]
                let deviceA = try await Realm(configuration: configA)
                var configA2 = configA
                configA2.fileURL = configA.fileURL!.deletingLastPathComponent().appendingPathComponent("\(type)-a2.realm")
                let deviceA2 = try await Realm(configuration: configA2, downloadBeforeOpen: .always)
                var configB = user.configuration(partitionValue: other)
                configB.objectTypes = [model]
                #expect(configB.fileURL != configA.fileURL)
                let deviceB = try await Realm(configuration: configB, downloadBeforeOpen: .always)

                try deviceA.write { deviceA.add(make("typed \(type)")) }
                try await deviceA.syncSession!.wait(for: .upload)
                try await deviceA2.syncSession!.wait(for: .download)
                deviceA2.refresh()
                #expect(deviceA2.objects(model).count == 1)
                #expect(deviceA2.objects(model).first.map(text) == "typed \(type)")
                try await deviceB.syncSession!.wait(for: .download)
                deviceB.refresh()
                #expect(deviceB.objects(model).isEmpty)
                #expect(reports.errors.isEmpty, "\(reports.errors)")
            }
        }
    }

    @Test func wrongPartitionValueStopsTheSessionWithBadChangeset() async throws {
        try await withTestServer(configuration: try partitionServerApp()) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                let user = try await app.login(credentials: .anonymous)
                var config = user.configuration(partitionValue: "team-a")
                config.objectTypes = [Note.self]
                let realm = try await Realm(configuration: config)
                let note = Note()
                note._partition = "team-b"
                try realm.write { realm.add(note) }
                let errors = try await reports.waitForErrors(1)
                #expect(errors[0].code == .clientSessionError)
                #expect(errors[0].protocolErrorCode == 212)
                #expect(errors[0].localizedDescription.hasPrefix(
                    "failed to validate upload changesets: SET instruction had incorrect partition value for key \"_partition\""))
                try await eventually { realm.syncSession?.state == .invalid }
                // The local object stays.
                #expect(realm.objects(Note.self).count == 1)
                // The session that ended syncs no more, and lets go of the file: another process may take it over
                // (before, the lock stayed until log-out or exit).
                let lock = SyncFileLock(realmPath: realm.configuration.fileURL!.path)
                try await eventually("the file's sync lock is free") { lock.tryAcquire() }
                lock.release()
            }
        }
    }

    @Test func flexibleOnlyAPIsAreRefusedOnPartitionRealms() async throws {
        try await withTestServer(configuration: try partitionServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                for partition: AnyBSON in [.string("s"), .int64(42), .objectId(ObjectId.generate()), .uuid(UUID()), .null] {
                    var config = user.configuration(partitionValue: partition)
                    config.objectTypes = [Note.self]
                    #expect(config.syncConfiguration?.enableFlexibleSync == false)
                    #expect(config.syncConfiguration?.partitionValue == partition)
                }
                let paths = Set([AnyBSON.string("s"), .int64(42), .null].map { user.configuration(partitionValue: $0).fileURL!.path })
                #expect(paths.count == 3)
            }
        }
    }

    /// One file per partition value: values whose old file names were the same (an escape without a fixed width,
    /// a name cut at 200 characters) get different files, and every name fits a file system's 255 bytes.
    @Test func everyPartitionValueHasItsOwnFileName() throws {
        let long = String(repeating: "tenant/", count: 40)
        let values: [Value] = [
            .string(" 20"), .string("\u{2020}"), .string("a/b"), .string("a%2Fb"), .string("é"), .string("e\u{301}"),
            .string(long + "1"), .string(long + "2"), .string(String(repeating: "日本", count: 100)),
            .int(42), .string("42"), .objectId(ObjectId.generate()), .uuid(UUID()), .null, .string(""),
        ]
        let names = values.map(SyncFileNames.partitionFileName)
        #expect(Set(names).count == values.count, "\(names)")
        for name in names {
            #expect(name.utf8.count <= 255 && name.hasSuffix(".realm"), "\(name)")
            #expect(name.utf8.allSatisfy { $0 < 0x80 } && !name.contains("/"), "\(name)")
        }
        #expect(SyncFileNames.partitionFileName(.string("team")) == "%22team%22.realm")
        // FNV-1a 128 of "a" (the published test vector).
        #expect(String(SyncFileNames.fnv1a128("a".utf8), radix: 16) == "d228cb696f1a8caf78912b704e4a8964")
    }
}
