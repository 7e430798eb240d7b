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
}
