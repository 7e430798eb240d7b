import Foundation
@testable import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Client resets (docs/sync-client.md, "Client reset") against a real `outpost-server` process whose data directory
/// is restored from an earlier backup, the way an operator recovers a lost server: the client's file then holds
/// more than the server (objects whose upload the server acknowledged after the backup) and unsynced changes made
/// offline. The server refuses the file's session (209: the file downloaded more than the server has), and the
/// client resets it by the configuration's `ClientResetMode`.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ClientResetTests {
    /// The numbers every scenario ends with on the server: the ten objects from before the backup.
    static let backedUp = Array(0..<10)

    @Test func recoverKeepsTheUnsyncedChangesAndDropsWhatTheServerLost() async throws {
        let calls = ResetCallbacks()
        try await withRestoredServerScenario("reset-recover", mode: .recoverUnsyncedChanges(
            beforeReset: { calls.recordBefore(Self.numbers($0)) },
            afterReset: { calls.recordAfter(Self.numbers($0), Self.numbers($1)) })
        ) { scenario in
            // Objects 10-19 were lost with the server's data; the offline changes (20-24 created, 3 edited, 4
            // deleted) are uploaded again on top of the server's data.
            let expected = [0, 1, 2, 3, 5, 6, 7, 8, 9] + Array(20..<25)
            try await eventually(timeout: .seconds(60), "the client reset") { calls.afterCount == 1 }
            try await scenario.settle()
            #expect(Self.numbers(scenario.realm) == expected)
            #expect(scenario.realm.objects(NumberedItem.self).filter("number == 3").first?.payload == "edited offline")
            #expect(calls.before == [Array(0..<4) + Array(5..<25)], "beforeReset sees the file as it was")
            #expect(calls.after.first?.before == Array(0..<4) + Array(5..<25))
            #expect(calls.after.first?.after == expected, "afterReset sees the reset file")
            // The server and a new device hold the same.
            let other = try await scenario.openSecondDevice()
            #expect(Self.numbers(other) == expected)
            #expect(other.objects(NumberedItem.self).filter("number == 3").first?.payload == "edited offline")
            #expect(scenario.reports.errors.isEmpty, "an automatic reset reports no error: \(scenario.reports.errors)")
            #expect(scenario.realm.syncSession?.state == .active)
            #expect(scenario.reports.lines.contains { $0.contains("client reset, recovering unsynced changes") })
            #expect(scenario.reports.lines.contains { $0.contains("client reset complete") })
            for version in scenario.offlineTransactions {
                let verdict = try await scenario.realm.syncSession!.verdict(forTransaction: version)
                guard case .accepted = verdict else {
                    Issue.record("the recovered transaction \(version) was not accepted: \(verdict)")
                    continue
                }
            }
        }
    }

    @Test func discardReplacesTheFileWithTheServersData() async throws {
        let calls = ResetCallbacks()
        try await withRestoredServerScenario("reset-discard", mode: .discardUnsyncedChanges(
            beforeReset: { calls.recordBefore(Self.numbers($0)) },
            afterReset: { calls.recordAfter(Self.numbers($0), Self.numbers($1)) })
        ) { scenario in
            try await eventually(timeout: .seconds(60), "the client reset") { calls.afterCount == 1 }
            try await scenario.settle()
            #expect(Self.numbers(scenario.realm) == Self.backedUp)
            #expect(scenario.realm.objects(NumberedItem.self).filter("number == 3").first?.payload == "payload 3")
            #expect(calls.before == [Array(0..<4) + Array(5..<25)])
            #expect(calls.after.first?.after == Self.backedUp)
            let other = try await scenario.openSecondDevice()
            #expect(Self.numbers(other) == Self.backedUp)
            #expect(scenario.reports.errors.isEmpty, "an automatic reset reports no error: \(scenario.reports.errors)")
            // Each discarded transaction's verdict names the objects it wrote.
            let session = scenario.realm.syncSession!
            guard case .rejected(let created)? = try? await session.verdict(forTransaction: scenario.offlineTransactions[0]),
                  case .rejected(let edited)? = try? await session.verdict(forTransaction: scenario.offlineTransactions[1])
            else {
                Issue.record("the discarded transactions were not reported as rejected")
                return
            }
            #expect(created.count == 5 && created.allSatisfy { $0.objectType == "NumberedItem" })
            #expect(edited.count == 2, "the edited and the deleted object: \(edited)")
            #expect(edited.allSatisfy { $0.reason == ClientResetPlan.discardedReason })
            // The discarded transactions count as uploaded; new writes sync as usual.
            try scenario.commit(100..<101)
            try await scenario.settle()
            let otherSession = other.syncSession!
            try await withDeadline(.seconds(30), "the second device's download") { try await otherSession.wait(for: .download) }
            other.refresh()
            #expect(Self.numbers(other) == Self.backedUp + [100])
        }
    }

    @Test func manualReportsTheResetAndMovesTheFileToItsBackupPath() async throws {
        let reported = LockedErrors()
        try await withRestoredServerScenario("reset-manual", mode: .manual(errorHandler: { error, _ in reported.append(error) })
        ) { scenario in
            try await eventually(timeout: .seconds(60), "the reset error") { !reported.errors.isEmpty }
            let error = try #require(reported.errors.first)
            #expect(error.code == .clientResetError)
            #expect(error.protocolErrorCode == 209)
            #expect(error.isClientResetRequested)
            let (backupPath, token) = try #require(error.clientResetInfo())
            #expect(backupPath.contains("/recovered-realms/"))
            #expect(error.errorUserInfo["recovered_realm_location_path"] as? String == backupPath)
            #expect(scenario.realm.syncSession?.state == .invalid)
            #expect(scenario.reports.errors.isEmpty, "the manual handler, not the manager's, gets the reset")
            let path = scenario.configuration.fileURL!.path
            // While a Realm of the file is open, the file stays where it is.
            SyncSession.immediatelyHandleError(token, syncManager: scenario.app.syncManager)
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(!FileManager.default.fileExists(atPath: backupPath))
            #expect(scenario.reports.lines.contains { $0.contains("is still open") })
            scenario.close()

            SyncSession.immediatelyHandleError(token, syncManager: scenario.app.syncManager)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(FileManager.default.fileExists(atPath: backupPath))
            // The backup holds everything the file held, unsynced changes included.
            var backupConfiguration = Realm.Configuration(fileURL: URL(fileURLWithPath: backupPath))
            backupConfiguration.objectTypes = [NumberedItem.self]
            let backup = try await Realm(configuration: backupConfiguration)
            #expect(Self.numbers(backup) == Array(0..<4) + Array(5..<25))
            // Opened again, the file starts from the server's data.
            let reopened = try await Realm(configuration: scenario.configuration, downloadBeforeOpen: .always)
            #expect(Self.numbers(reopened) == Self.backedUp)
        }
    }

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

    /// The restore a client can only tell by the cursor's salt: after the backup, device A downloaded B's changes
    /// (and uploaded nothing); the restore loses them; then device C writes more than B did, so the restored
    /// server's history passes A's cursor with other changesets. A's cursor version exists on the server, and no
    /// acknowledged upload of A's is missing — only the salt of that version differs. A resets and ends with the
    /// server's data; without the salt it kept B's lost objects and missed C's first changesets for good.
    @Test func aRestoredHistoryThatPassedTheCursorIsToldByItsSalt() async throws {
        let calls = ResetCallbacks()
        try await withRestorableServer("reset-salt") { server, app, reports in
            let user = try await app.login(credentials: .anonymous)
            var configuration = user.flexibleSyncConfiguration(
                clientResetMode: .recoverUnsyncedChanges(afterReset: { calls.recordAfter(Self.numbers($0), Self.numbers($1)) }),
                initialSubscriptions: { $0.append(QuerySubscription<NumberedItem>(name: "all")) })
            configuration.objectTypes = [NumberedItem.self]
            func device(_ name: String) async throws -> ResetScenario {
                var file = configuration
                file.fileURL = configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("\(name).realm")
                return ResetScenario(app: app, configuration: file, reports: reports,
                                     realm: try await Realm(configuration: file, downloadBeforeOpen: .always))
            }
            let a = try await device("a")
            let b = try await device("b")
            try a.commit(0..<5)
            try await a.settle()
            try await server.backUp()
            for n in 100..<103 { try b.commit(n..<n + 1) }
            try await b.settle()
            try await eventuallyAsync(timeout: .seconds(30), "A downloads B's objects") {
                try await a.settle()
                return Self.numbers(a.realm) == Array(0..<5) + Array(100..<103)
            }
            a.realm.syncSession!.suspend()
            b.realm.syncSession!.suspend()
            try await server.restoreBackup()
            let c = try await device("c")
            for n in 200..<205 { try c.commit(n..<n + 1) }
            try await c.settle()

            a.realm.syncSession!.resume()
            try await eventually(timeout: .seconds(60), "the client reset") { calls.afterCount == 1 }
            try await a.settle()
            let expected = Array(0..<5) + Array(200..<205)
            #expect(Self.numbers(a.realm) == expected)
            #expect(Self.numbers(c.realm) == expected)
            #expect(reports.lines.contains { $0.contains("is not the server's") })
        }
    }

    /// A reset begun (the file's identity forgotten, the reset recorded) but not finished when the process stopped
    /// is finished by the next connection: the file ends as the server's data plus its unsynced changes. An object
    /// the server never had and no queued transaction created (written here without being recorded for upload, as
    /// if its upload had been lost with the server's data) is removed.
    @Test func aResetInterruptedBeforeItsDownloadFinishesOnTheNextConnection() async throws {
        try await withTestServer(configuration: .development(appId: "reset-resume")) { server in
            try await withClientApp(server) { app in
                let calls = ResetCallbacks()
                let user = try await app.login(credentials: .anonymous)
                var configuration = user.flexibleSyncConfiguration(
                    clientResetMode: .recoverUnsyncedChanges(afterReset: { calls.recordAfter(Self.numbers($0), Self.numbers($1)) }),
                    initialSubscriptions: { $0.append(QuerySubscription<NumberedItem>(name: "all")) })
                configuration.objectTypes = [NumberedItem.self]
                let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
                let scenario = ResetScenario(app: app, configuration: configuration, reports: SyncReports(), realm: realm)
                try scenario.commit(0..<5)
                try await scenario.settle()
                realm.syncSession!.suspend()
                try scenario.commit(5..<7)
                realm.instance.syncRecorder?.isApplyingDownload = true
                try scenario.commit(50..<51)
                realm.instance.syncRecorder?.isApplyingDownload = false
                try realm.instance.syncBeginClientReset(.recover)
                #expect(Self.numbers(realm) == Array(0..<7) + [50], "beginning a reset changes no object")

                realm.syncSession!.resume()
                try await eventually(timeout: .seconds(60), "the client reset") { calls.afterCount == 1 }
                try await scenario.settle()
                #expect(Self.numbers(realm) == Array(0..<7))
                #expect(calls.after.first?.after == Array(0..<7))
                #expect(try realm.instance.connection.scalar("SELECT count(*) FROM __outpost_sync_meta WHERE key = 'clientReset'")
                    == .integer(0), "the finished reset is no longer recorded")
                let other = try await scenario.openSecondDevice()
                #expect(Self.numbers(other) == Array(0..<7))
            }
        }
    }

    /// A flexible-sync reset sends the newest complete subscription set again and waits for its bootstrap. When the
    /// server now refuses that set (here: its query uses a field that is not queryable), no bootstrap comes: the
    /// reset finishes with an empty view — the set reads `.error`, the objects it had downloaded are removed — and
    /// waiting for downloads does not hang.
    @Test func aResetWhoseSubscriptionTheServerNowRefusesFinishesWithAnEmptyView() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "reset-refused")) { server in
            try await withClientApp(server) { app in
                let calls = ResetCallbacks()
                let user = try await app.login(credentials: .anonymous)
                var configuration = user.flexibleSyncConfiguration(
                    clientResetMode: .recoverUnsyncedChanges(afterReset: { before, after in
                        calls.recordAfter([before.objects(Item.self).count], [after.objects(Item.self).count])
                    }),
                    initialSubscriptions: { $0.append(QuerySubscription<Item> { $0.complexity <= 4 }) })
                configuration.objectTypes = [Item.self]
                let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
                try realm.write {
                    for i in 0..<3 {
                        let item = Item()
                        item.ownerId = user.id
                        item.itemName = "item \(i)"
                        item.complexity = 1
                        realm.add(item)
                    }
                }
                let session = realm.syncSession!
                try await withDeadline(.seconds(30), "upload") { try await session.wait(for: .upload) }
                session.suspend()
                try realm.instance.beginWrite()
                try realm.instance.connection.execute(
                    "UPDATE __outpost_sync_subscriptions SET subscriptions = replace(subscriptions, 'complexity', 'itemName') WHERE state = 'complete'")
                try realm.instance.commitWrite()
                try realm.instance.syncBeginClientReset(.recover)
                session.resume()
                try await eventually(timeout: .seconds(60), "the client reset") { calls.afterCount == 1 }
                try await withDeadline(.seconds(30), "download") { try await session.wait(for: .download) }
                realm.refresh()
                #expect(realm.objects(Item.self).isEmpty)
                guard case .error = realm.subscriptions.state else {
                    Issue.record("the refused set reads \(realm.subscriptions.state)")
                    return
                }
            }
        }
    }

    /// The configuration's mode and what the server allows decide the reset, as in the original: a refused recovery
    /// falls back to manual (`.recoverUnsyncedChanges`) or to discarding (`.recoverOrDiscardUnsyncedChanges`).
    @Test func theModeAndTheServersActionChooseThePlan() {
        func info(_ code: Int, _ action: SyncErrorAction, disabled: Bool = false) -> SyncErrorInfo {
            SyncErrorInfo(session: 1, code: SyncErrorCode(rawValue: code), message: "m", tryAgain: false, action: action,
                          shouldClientReset: true, isRecoveryModeDisabled: disabled)
        }
        let reset = info(209, .clientReset)
        let noRecovery = info(209, .clientResetNoRecovery)
        let disabled = info(208, .clientReset, disabled: true)
        #expect(ClientResetPlan(mode: .recoverUnsyncedChanges(), info: reset) == .recover)
        #expect(ClientResetPlan(mode: .recoverUnsyncedChanges(), info: noRecovery) == .manual)
        #expect(ClientResetPlan(mode: .recoverUnsyncedChanges(), info: disabled) == .manual)
        #expect(ClientResetPlan(mode: .recoverOrDiscardUnsyncedChanges(), info: reset) == .recover)
        #expect(ClientResetPlan(mode: .recoverOrDiscardUnsyncedChanges(), info: noRecovery) == .discard)
        #expect(ClientResetPlan(mode: .discardUnsyncedChanges(), info: reset) == .discard)
        #expect(ClientResetPlan(mode: .manual(), info: reset) == .manual)
        // Which errors ask for a reset: the original's codes, or the action.
        for code in [208, 209, 210, 211, 217, 222] {
            #expect(ClientResetPlan.isRequested(by: SyncErrorInfo(session: 1, code: SyncErrorCode(rawValue: code), message: "m",
                                                                   tryAgain: false, action: .applicationBug)))
        }
        #expect(ClientResetPlan.isRequested(by: info(201, .clientReset)))
        #expect(!ClientResetPlan.isRequested(by: SyncErrorInfo(session: 1, code: .badChangeset, message: "m", tryAgain: false,
                                                                action: .applicationBug)))
        #expect(!ClientResetPlan.isRequested(by: SyncErrorInfo(session: 1, code: .otherSessionError, message: "m", tryAgain: true,
                                                                action: .transient)))
    }

    /// `immediatelyHandleError` with a token whose file is already gone moves nothing and does not fail; the backup
    /// path is beside the file, in `recovered-realms`, named after it and the time.
    @Test func handlingAResetWhoseFileIsGoneDoesNothing() throws {
        let directory = try KillTests.temporaryDirectory("reset-gone")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("gone.realm").path
        let backup = ClientResetBackup.path(for: path, at: Date(timeIntervalSince1970: 0))
        #expect(backup == directory.appendingPathComponent("recovered-realms/gone-19700101T000000Z.realm").path)
        let app = App(id: "reset-gone", configuration: AppConfiguration(baseURL: "http://127.0.0.1:9", rootDirectory: directory))
        SyncSession.immediatelyHandleError(SyncError.ActionToken(originalPath: path, backupPath: backup), syncManager: app.syncManager)
        #expect(!FileManager.default.fileExists(atPath: backup))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // MARK: Support

    static func numbers(_ realm: Realm) -> [Int] {
        realm.objects(NumberedItem.self).map(\.number).sorted()
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

    /// The story every flexible-sync test starts with: objects 0-9 uploaded; the server's data directory backed
    /// up; objects 10-19 uploaded and acknowledged; the session suspended and, offline, objects 20-24 created, 3
    /// edited and 4 deleted; the backup restored; the session resumed. `body` sees what happens next.
    func withRestoredServerScenario(_ name: String, mode: ClientResetMode,
                                    _ body: (ResetScenario) async throws -> Void) async throws {
        try await withRestorableServer(name) { server, app, reports in
            let user = try await app.login(credentials: .anonymous)
            var configuration = user.flexibleSyncConfiguration(clientResetMode: mode, initialSubscriptions: { subscriptions in
                subscriptions.append(QuerySubscription<NumberedItem>(name: "all"))
            })
            configuration.objectTypes = [NumberedItem.self]
            let scenario = ResetScenario(app: app, configuration: configuration, reports: reports,
                                         realm: try await Realm(configuration: configuration, downloadBeforeOpen: .always))
            let session = scenario.realm.syncSession!
            try scenario.commit(0..<10)
            try await withDeadline(.seconds(30), "upload") { try await session.wait(for: .upload) }
            try await server.backUp()
            try scenario.commit(10..<20)
            try await withDeadline(.seconds(60), "upload after the backup") { try await session.wait(for: .upload) }
            session.suspend()
            try scenario.commit(20..<25)
            scenario.offlineTransactions.append(scenario.realm.lastCommittedSyncTransaction!)
            do {
                let realm = scenario.realm
                try realm.write {
                    realm.objects(NumberedItem.self).filter("number == 3").first!.payload = "edited offline"
                    realm.delete(realm.objects(NumberedItem.self).filter("number == 4").first!)
                }
                scenario.offlineTransactions.append(realm.lastCommittedSyncTransaction!)
            }
            try await server.restoreBackup()
            session.resume()
            try await body(scenario)
        }
    }

    /// A ``RestorableServer`` in a new directory — serving `appConfig` (an app configuration's JSON text) when
    /// given, else the development app — and a client `App` for it with its reports installed. Afterwards, also
    /// when `body` throws, the users are logged out and the server is stopped.
    func withRestorableServer(
        _ name: String, appId: String = AppDefinition.developmentAppId, appConfig: String? = nil,
        _ body: (RestorableServer, App, SyncReports) async throws -> Void
    ) async throws {
        let directory = try KillTests.temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments: [String] = []
        if let appConfig {
            let file = directory.appendingPathComponent("app.json")
            try appConfig.write(to: file, atomically: true, encoding: .utf8)
            arguments = ["--config", file.path]
        }
        let server = try await RestorableServer(directory: directory, arguments: arguments)
        let app = App(id: appId, configuration: AppConfiguration(
            baseURL: server.baseURL, rootDirectory: directory.appendingPathComponent("client")))
        let reports = SyncReports()
        reports.install(on: app)
        func cleanUp() async {
            for user in app.allUsers.values where user.isLoggedIn { try? await user.logOut() }
            await server.stop()
        }
        do {
            try await body(server, app, reports)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}

/// The client of a reset scenario.
final class ResetScenario: @unchecked Sendable {  // used from the test's task only
    let app: App
    let configuration: Realm.Configuration
    let reports: SyncReports
    /// The client versions of the transactions committed offline.
    var offlineTransactions: [Int64] = []
    private var opened: Realm?
    var realm: Realm { opened! }

    init(app: App, configuration: Realm.Configuration, reports: SyncReports, realm: Realm) {
        self.app = app
        self.configuration = configuration
        self.reports = reports
        opened = realm
    }

    /// Commits one object per number, in one transaction.
    func commit(_ numbers: Range<Int>) throws {
        try realm.write {
            for n in numbers {
                let item = NumberedItem()
                item.number = n
                item.payload = "payload \(n)"
                realm.add(item)
            }
        }
    }

    /// Waits for the upload and the download, and refreshes.
    func settle() async throws {
        let session = realm.syncSession!
        try await withDeadline(.seconds(30), "upload") { try await session.wait(for: .upload) }
        try await withDeadline(.seconds(30), "download") { try await session.wait(for: .download) }
        realm.refresh()
    }

    /// Another file of the same user, downloaded from the server.
    func openSecondDevice() async throws -> Realm {
        var second = configuration
        second.fileURL = configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("second.realm")
        return try await Realm(configuration: second, downloadBeforeOpen: .always)
    }

    /// Drops this scenario's Realm.
    func close() { opened = nil }
}

/// An `outpost-server` process on one data directory and port, stopped to back its data directory up and to
/// restore it.
final class RestorableServer: @unchecked Sendable {  // used from the test's task only
    let directory: URL
    let arguments: [String]
    private var process: OutpostServerProcess
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }
    var dataDirectory: URL { directory.appendingPathComponent("server") }
    var backupDirectory: URL { directory.appendingPathComponent("server-backup") }

    init(directory: URL, arguments: [String]) async throws {
        self.directory = directory
        self.arguments = arguments
        process = try await OutpostServerProcess.launch(
            arguments: ["--port", "0", "--data-dir", directory.appendingPathComponent("server").path] + arguments)
        port = process.port
    }

    /// Stops the server, copies its data directory, and starts it again.
    func backUp() async throws {
        _ = try await process.terminate()
        try FileManager.default.copyItem(at: dataDirectory, to: backupDirectory)
        try await relaunch()
    }

    /// Stops the server, replaces its data directory with the backup, and starts it again.
    func restoreBackup() async throws {
        _ = try await process.terminate()
        try FileManager.default.removeItem(at: dataDirectory)
        try FileManager.default.copyItem(at: backupDirectory, to: dataDirectory)
        try await relaunch()
    }

    func stop() async {
        _ = try? await process.terminate()
    }

    private func relaunch() async throws {
        var lastError: Error?
        for _ in 0..<50 {
            do {
                process = try await OutpostServerProcess.launch(
                    arguments: ["--port", "\(port)", "--data-dir", dataDirectory.path] + arguments, timeout: .seconds(30))
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError ?? TestServerError("cannot restart the server")
    }
}

/// What the reset callbacks saw, thread-safely.
final class ResetCallbacks: @unchecked Sendable {  // behind `lock`
    private let lock = NSLock()
    private var _before: [[Int]] = []
    private var _after: [(before: [Int], after: [Int])] = []
    private var _afterTexts: [(before: [String], after: [String])] = []

    var before: [[Int]] { lock.withLock { _before } }
    var after: [(before: [Int], after: [Int])] { lock.withLock { _after } }
    var afterTexts: [(before: [String], after: [String])] { lock.withLock { _afterTexts } }
    var afterCount: Int { lock.withLock { _after.count + _afterTexts.count } }

    func recordBefore(_ numbers: [Int]) { lock.withLock { _before.append(numbers) } }
    func recordAfter(_ before: [Int], _ after: [Int]) { lock.withLock { _after.append((before, after)) } }
    func recordAfter(_ before: [String], _ after: [String]) { lock.withLock { _afterTexts.append((before, after)) } }
}

/// Errors a handler received, thread-safely.
final class LockedErrors: @unchecked Sendable {  // behind `lock`
    private let lock = NSLock()
    private var _errors: [SyncError] = []
    var errors: [SyncError] { lock.withLock { _errors } }
    func append(_ error: SyncError) { lock.withLock { _errors.append(error) } }
}
