import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// The seed page's model.
final class Item: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var ownerId: String
    @Persisted var itemName: String
    @Persisted var complexity: Int
}

/// The seed page's app: role `owner-read-write`, `complexity` and `ownerId` queryable, development mode on.
func seedServerApp(appId: String = "seed-app") throws -> AppDefinition {
    try AppDefinition(jsonText: """
        {
          "app_id": "\(appId)",
          "auth": { "anonymous": { "enabled": true }, "email_password": { "enabled": true, "auto_confirm": true } },
          "sync": { "mode": "flexible", "queryable_fields_names": ["_id", "complexity", "ownerId"], "development_mode_enabled": true },
          "data_api": { "enabled": true },
          "rules": { "Item": { "roles": [ { "name": "owner-read-write", "apply_when": {},
            "document_filters": { "read": { "ownerId": "%%user.id" }, "write": { "ownerId": "%%user.id" } },
            "read": true, "write": true } ] } }
        }
        """)
}

/// A client `App` for a test server, with its own temporary root directory (so every test has fresh users and
/// files). The directory is removed afterwards; the user's sessions are stopped first.
func withClientApp<T>(_ server: TestServer, syncTimeouts: SyncTimeoutOptions? = nil, _ body: (App) async throws -> T)
    async throws -> T
{
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-client-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let app = App(id: server.appId, configuration: AppConfiguration(baseURL: server.baseURL, syncTimeouts: syncTimeouts,
                                                                    rootDirectory: root))
    // The sync log is kept, not printed: a test that fails by throwing prints it (a test that sets its own logger
    // replaces this one).
    let log = LockedLines()
    let start = ContinuousClock.now
    app.syncManager.logLevel = ProcessInfo.processInfo.environment["OUTPOST_SYNC_LOG"] != nil ? .all : .info
    app.syncManager.logger = { level, line in log.append("\(ContinuousClock.now - start) \(level): \(line)") }
    defer { try? FileManager.default.removeItem(at: root) }
    do {
        let result = try await body(app)
        for user in app.allUsers.values where user.isLoggedIn { try? await user.logOut() }
        return result
    } catch {
        let lines = log.all
        if !lines.isEmpty { print("sync log of the failed test (\(lines.count) lines, the last 200):\n" + lines.suffix(200).joined(separator: "\n")) }
        for user in app.allUsers.values where user.isLoggedIn { try? await user.logOut() }
        throw error
    }
}

/// Collects what the sync manager reports, thread-safely.
final class SyncReports: @unchecked Sendable {
    private let lock = NSLock()
    private var _errors: [SyncError] = []
    private var _lines: [String] = []
    /// For each reported compensating write: whether the object was already gone locally when it was reported.
    private var _revertedFirst: [Bool] = []

    var errors: [SyncError] { lock.withLock { _errors } }
    var lines: [String] { lock.withLock { _lines } }
    var revertedFirst: [Bool] { lock.withLock { _revertedFirst } }

    /// Installs the error handler and logger on `app`. `isReverted` checks, at report time, that a rejected object
    /// is gone from the file.
    func install(on app: App, isReverted: (@Sendable (SyncError) -> Bool)? = nil) {
        app.syncManager.errorHandler = { error, _ in
            guard let error = error as? SyncError else { return }
            let reverted = isReverted?(error) ?? true
            self.lock.withLock {
                self._errors.append(error)
                self._revertedFirst.append(reverted)
            }
        }
        app.syncManager.logLevel = ProcessInfo.processInfo.environment["OUTPOST_SYNC_LOG"] != nil ? .all : .info
        app.syncManager.logger = { _, line in
            if ProcessInfo.processInfo.environment["OUTPOST_SYNC_LOG"] != nil { print(line) }
            self.lock.withLock { self._lines.append(line) }
        }
    }

    /// Waits until `count` errors were reported.
    func waitForErrors(_ count: Int, timeout: Duration = testPatience) async throws -> [SyncError] {
        try await eventually(timeout: timeout) { self.errors.count >= count }
        return errors
    }
}

struct SyncTestTimeout: Error, CustomStringConvertible {
    let description: String
}

/// How long the sync tests wait for something that normally takes milliseconds. Generous because the whole suite
/// runs in parallel on CI's two cores, where a test's tasks have been seen to wait more than 20 s for their turn
/// (hundreds of tests then finish within the same few milliseconds).
let testPatience: Duration = .seconds(60)

/// Polls `condition` every 20 ms until it holds.
func eventually(timeout: Duration = testPatience, _ what: String = "condition", _ condition: () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw SyncTestTimeout(description: "\(what) did not hold within \(timeout)")
}

/// Polls an async `condition` every 50 ms until it holds.
func eventuallyAsync(timeout: Duration = testPatience, _ what: String = "condition",
                     _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw SyncTestTimeout(description: "\(what) did not hold within \(timeout)")
}

/// A flexible configuration of `user` for `NumberedItem`s, subscribed to all of them (subscription "all").
func numberedItemsConfiguration(_ user: User) -> Realm.Configuration {
    var configuration = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
        subscriptions.append(QuerySubscription<NumberedItem>(name: "all"))
    })
    configuration.objectTypes = [NumberedItem.self]
    return configuration
}

/// The seed page's client set-up for `user`: a flexible configuration for `Item`s, optionally with the initial
/// subscription `complexity <= 4`.
func seedConfiguration(_ user: User, subscribed: Bool = true) -> Realm.Configuration {
    var config = subscribed
        ? user.flexibleSyncConfiguration(initialSubscriptions: { subs in
            subs.append(QuerySubscription<Item> { $0.complexity <= 4 })
        })
        : user.flexibleSyncConfiguration()
    config.objectTypes = [Item.self]
    return config
}
