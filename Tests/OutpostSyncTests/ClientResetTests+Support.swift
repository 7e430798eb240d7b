import Foundation
@testable import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// The scenarios' scaffolding: a server process restored from its backup, the client of a reset, and what the
/// reset callbacks and error handlers saw.
extension ClientResetTests {
    static func numbers(_ realm: Realm) -> [Int] {
        realm.objects(NumberedItem.self).map(\.number).sorted()
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
