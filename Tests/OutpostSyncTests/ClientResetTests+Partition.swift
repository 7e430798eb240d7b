import Foundation
@testable import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Client resets of partition-based sync files, and the partition app, file and `Note`s they use.
extension ClientResetTests {
    @Test func partitionBasedRecoverKeepsTheUnsyncedChanges() async throws {
        let calls = ResetCallbacks()
        try await withRestorableServer("reset-pbs", appId: "pbs-reset", appConfig: Self.partitionApp("pbs-reset")) {
            server, app, reports in
            let user = try await app.login(credentials: .anonymous)
            let configuration = Self.partitionConfiguration(user, recordingAfterResetIn: calls)
            let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
            let session = realm.syncSession!
            func add(_ range: Range<Int>) throws {
                try realm.write {
                    for n in range { realm.add(Self.note(n)) }
                }
            }
            try add(0..<5)
            try await withDeadline(.seconds(30), "upload") { try await session.wait(for: .upload) }
            try await server.backUp()
            try add(5..<10)
            try await withDeadline(.seconds(60), "upload after the backup") { try await session.wait(for: .upload) }
            session.suspend()
            try add(10..<11)
            try realm.write {
                realm.objects(Note.self).filter("text == 'note 1'").first!.text = "note 1 edited"
                realm.delete(realm.objects(Note.self).filter("text == 'note 2'").first!)
            }
            try await server.restoreBackup()
            session.resume()
            try await eventually(timeout: .seconds(60), "the client reset") { calls.afterCount == 1 }
            try await withDeadline(.seconds(30), "upload") { try await session.wait(for: .upload) }
            try await withDeadline(.seconds(30), "download") { try await session.wait(for: .download) }
            realm.refresh()
            let expected = ["note 0", "note 1 edited", "note 10", "note 3", "note 4"]
            #expect(Self.texts(realm) == expected)
            #expect(calls.afterTexts.first?.after == expected)
            var secondConfiguration = configuration
            secondConfiguration.fileURL = configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("second.realm")
            let other = try await Realm(configuration: secondConfiguration, downloadBeforeOpen: .always)
            #expect(Self.texts(other) == expected)
            #expect(reports.errors.isEmpty, "\(reports.errors)")
        }
    }

    /// A partition-based reset downloads the server's history since version 0 and applies it once caught up. Here
    /// that history spans two download messages (3,000 instructions; a message holds at most 2,000), so the first
    /// is held back: parsed in memory under the default limit, stored in the file with a limit of one byte. Both
    /// end with the server's 3,000 notes and the unsynced one, and nothing left stored.
    @Test(arguments: [8 << 20, 1]) func aPartitionResetHoldsItsDownloadsUntilCaughtUp(limit: Int) async throws {
        let calls = ResetCallbacks()
        try await withRestorableServer("reset-pbs-held", appId: "pbs-held", appConfig: Self.partitionApp("pbs-held")) {
            server, app, reports in
            let user = try await app.login(credentials: .anonymous)
            var configuration = Self.partitionConfiguration(user, recordingAfterResetIn: calls)
            configuration.syncConfiguration?.heldDownloadMemoryLimit = limit
            let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
            let session = realm.syncSession!
            for start in stride(from: 0, to: 3_000, by: 1_000) {
                try realm.write {
                    for n in start..<start + 1_000 { realm.add(Self.note(n)) }
                }
            }
            try await withDeadline(.seconds(60), "upload") { try await session.wait(for: .upload) }
            try await server.backUp()
            try realm.write { realm.add(Self.note(3_000)) }
            try await withDeadline(.seconds(60), "upload after the backup") { try await session.wait(for: .upload) }
            session.suspend()
            try realm.write { realm.add(Self.note(3_001)) }
            try await server.restoreBackup()
            session.resume()
            try await eventually(timeout: .seconds(60), "the client reset") { calls.afterCount == 1 }
            try await withDeadline(.seconds(30), "upload") { try await session.wait(for: .upload) }
            realm.refresh()
            let texts = Self.texts(realm)
            #expect(texts.count == 3_001)
            #expect(texts.contains("note 3001") && texts.contains("note 2999") && !texts.contains("note 3000"))
            #expect(try realm.instance.connection.scalar("SELECT count(*) FROM __outpost_sync_held") == .integer(0))
            #expect(reports.errors.isEmpty, "\(reports.errors)")
        }
    }

    static func texts(_ realm: Realm) -> [String] {
        realm.objects(Note.self).map(\.text).sorted()
    }

    /// A partition-based development app (partition key `_partition`, a string; everyone reads and writes), as the
    /// JSON text of its configuration file.
    static func partitionApp(_ appId: String) -> String {
        """
        { "app_id": "\(appId)", "auth": { "anonymous": { "enabled": true } },
          "sync": { "mode": "partition", "development_mode_enabled": true,
                    "partition": { "key": "_partition", "type": "string", "permissions": { "read": true, "write": true } } } }
        """
    }

    /// The user's file of partition "team" (`Note`s), recovering unsynced changes on a reset; `afterReset` records
    /// the notes before and after in `calls`.
    static func partitionConfiguration(_ user: User, recordingAfterResetIn calls: ResetCallbacks) -> Realm.Configuration {
        var configuration = user.configuration(partitionValue: "team", clientResetMode: .recoverUnsyncedChanges(
            afterReset: { calls.recordAfter(texts($0), texts($1)) }))
        configuration.objectTypes = [Note.self]
        return configuration
    }

    static func note(_ n: Int) -> Note {
        let note = Note()
        note._partition = "team"
        note.text = "note \(n)"
        return note
    }
}
