import CSQLite
import Foundation
@testable import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Streamed bootstraps (docs/sync-client.md, "Streamed bootstraps"): an open that downloads before it returns
/// applies its bootstrap as the batches arrive, in one write transaction from the first batch to the last. Readers
/// see none of it or all of it; a connection lost half-way rolls it back, and the next connection streams it again.
@Suite(.timeLimit(.minutes(3))) struct BootstrapStreamTests {
    /// 5,000 objects in three batches: the first open streams them (nothing is held, in memory or in the file), and
    /// another connection to the file, reading all along, never sees a part of them.
    @Test func aFirstOpenAppliesItsBootstrapAsItArrives() async throws {
        try await withTestServer(configuration: .development(appId: "stream")) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                app.syncManager.logLevel = .debug
                let user = try await app.login(credentials: .anonymous)
                let (writer, _) = try await openTwoDevices(user)
                let expected = try await uploadItems(5_000, from: writer)

                let path = writer.configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("stream.realm").path
                let watcher = CountWatcher(path: path)
                let reader = try await HeldDownloadsTests.openNewDevice(user, writer, "stream.realm", limit: 1)
                let seen = await watcher.stop()
                let items = reader.objects(ConvergenceItem.self)
                #expect(items.count == expected.count)
                for item in items { #expect(expected[item._id] == item.note) }
                #expect(seen.isSubset(of: [0, 5_000]) && seen.contains(0), "counts a reader saw during the open: \(seen.sorted())")
                #expect(reports.lines.contains { $0.contains("5000 instructions applied as they arrived") },
                        "\(reports.lines.filter { $0.contains("DOWNLOAD") })")
                #expect(!reports.lines.contains { $0.contains("held instructions") })
                #expect(try reader.instance.connection.scalar("SELECT count(*) FROM __outpost_sync_held") == .integer(0))
                // The session's own connection is back to syncing each commit.
                let synchronous = try await reader.syncSession!.agent!.database.perform {
                    try $0.connection.scalar("PRAGMA synchronous")
                }
                #expect(synchronous == .integer(2))
            }
        }
    }

    /// The second of three batches arrives unreadable: the connection ends, the first batch (applied in the open
    /// transaction) is rolled back, and the next connection streams the whole bootstrap again. The file ends with
    /// every object once, and a reader never saw a part of them.
    @Test func aStreamCutOffByALostConnectionIsRolledBackAndStreamedAgain() async throws {
        try await Self.withServerThrough("stream-cut", CorruptingSyncHandler.init) { proxy, reports, user, writer, other, expected in
            // The other device has the objects before the proxy is armed: only the new device's bootstrap
            // mentions them from now on.
            let otherSession = other.syncSession!
            try await withDeadline(.seconds(60), "the other device's download") { try await otherSession.wait(for: .download) }
            // Bootstraps send objects in key order, 2,000 to a batch: the 3,000th is in the second batch.
            let inSecondBatch = expected.keys.sorted { $0.stringValue < $1.stringValue }[3_000]
            proxy.corrupt(downloadMentioning: inSecondBatch.stringValue)

            let path = writer.configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("cut.realm").path
            let watcher = CountWatcher(path: path)
            let reader = try await HeldDownloadsTests.openNewDevice(user, writer, "cut.realm", limit: 8 << 20)
            let seen = await watcher.stop()
            #expect(reader.objects(ConvergenceItem.self).count == expected.count)
            for item in reader.objects(ConvergenceItem.self) { #expect(expected[item._id] == item.note) }
            #expect(seen.isSubset(of: [0, 5_000]), "counts a reader saw during the open: \(seen.sorted())")
            #expect(reports.lines.contains { $0.contains("bad message from the server") })
            #expect(reports.lines.filter { $0.contains("applying the bootstrap of query version") }.count == 2,
                    "\(reports.lines.filter { $0.contains("bootstrap") })")
        }
    }

    /// A Realm of the file opened and written by the app while a stream is open waits neither for the rest of the
    /// bootstrap nor for the next batch: the stream rolls back at once, the write commits, and the bootstrap comes
    /// again, held this time. The server here pauses five seconds before each bootstrap batch.
    @Test func aWriterOfTheFileDoesNotWaitForTheStream() async throws {
        try await Self.withServerThrough("stream-yield", SlowBootstrapHandler.init) { slow, reports, user, writer, _, expected in
            slow.pause = .seconds(5)

            let file = writer.configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("yield.realm")
            let sibling = UncheckedSendable(writer)  // only its file's directory is read
            let opening = Task {
                try await HeldDownloadsTests.openNewDevice(user, sibling.value, "yield.realm", limit: 8 << 20)
                    .objects(ConvergenceItem.self).count
            }
            try await eventually("the stream opens") {
                reports.lines.contains { $0.contains("applying the bootstrap of query version") }
            }
            var config = user.flexibleSyncConfiguration()
            config.objectTypes = [ConvergenceItem.self]
            config.fileURL = file
            let local = ConvergenceItem()
            local.note = "written during the stream"
            let started = ContinuousClock.now
            try await Task.detached {
                let realm = try Realm(configuration: config)
                try realm.write { realm.add(local) }
            }.value
            let waited = ContinuousClock.now - started
            #expect(waited < .seconds(3), "the write waited \(waited) (the next batch comes after 5 s)")
            slow.pause = .zero
            let count = try await opening.value
            #expect(count == expected.count + 1)
            #expect(reports.lines.contains { $0.contains("a Realm of the file waits to write") })
            #expect(reports.lines.contains { $0.contains("held instructions") },
                    "\(reports.lines.filter { $0.contains("DOWNLOAD") })")
        }
    }

    /// A message that is not the bootstrap's next batch — here a `tryAgain` error the server sends right after the
    /// first batch — rolls the stream back and is then handled as usual (the session logs it and connects again);
    /// the bootstrap comes again on the next connection and the file never holds a part of it.
    @Test func anotherMessageRollsTheStreamBackAndIsHandled() async throws {
        try await Self.withServerThrough("stream-error", SlowBootstrapHandler.init) { injecting, reports, user, writer, _, expected in
            injecting.errorAfterFirstBatch = ServerMessage.error(SyncErrorInfo(
                session: 1, code: .otherSessionError, message: "the server restarts", tryAgain: true,
                action: .transient)).text

            let path = writer.configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("error.realm").path
            let watcher = CountWatcher(path: path)
            let reader = try await HeldDownloadsTests.openNewDevice(user, writer, "error.realm", limit: 8 << 20)
            let seen = await watcher.stop()
            #expect(reader.objects(ConvergenceItem.self).count == expected.count)
            #expect(seen.isSubset(of: [0, 5_000]), "counts a reader saw during the open: \(seen.sorted())")
            #expect(reports.lines.contains { $0.contains("another message came before its last batch") })
            #expect(reports.lines.contains { $0.contains("the server restarts") },
                    "the error is handled: \(reports.lines.filter { $0.contains("ERROR") })")
            #expect(reports.lines.filter { $0.contains("applying the bootstrap of query version") }.count == 2)
        }
    }

    /// A server on a SQLite file of its own whose sync connections go through the handler `makeHandler` builds
    /// around its engine, and a client app logging at debug level into `reports`, logged in anonymously, with two
    /// devices, the first of which has uploaded 5,000 objects (`expected`: their notes by key).
    static func withServerThrough<Handler: SyncConnectionHandler>(
        _ appId: String, _ makeHandler: (SyncEngine) -> Handler,
        _ body: (_ handler: Handler, _ reports: SyncReports, _ user: User, _ writer: Realm, _ other: Realm,
                 _ expected: [ObjectId: String]) async throws -> Void
    ) async throws {
        try await TemporaryDirectory.with(appId) { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            let app = AppDefinition.development(appId: appId)
            let settings = try SyncAppSettings(app: app)
            let handler = makeHandler(SyncEngine(storage: storage) { $0 == settings.appId ? settings : nil })
            try await withTestServer(configuration: app, storage: storage, handler: handler) { server in
                try await withClientApp(server) { clientApp in
                    let reports = SyncReports()
                    reports.install(on: clientApp)
                    clientApp.syncManager.logLevel = .debug
                    let user = try await clientApp.login(credentials: .anonymous)
                    let (writer, other) = try await openTwoDevices(user)
                    let expected = try await uploadItems(5_000, from: writer)
                    try await body(handler, reports, user, writer, other, expected)
                }
            }
            try await storage.close()
        }
    }
}

/// Counts the `ConvergenceItem` rows of a file over and over on its own SQLite connection, from before the file
/// exists until ``stop()``, and collects every count it saw.
final class CountWatcher: Sendable {
    private let running = KillTests.LockedValue(true)
    private let task: Task<Set<Int>, Never>

    init(path: String) {
        let running = running
        task = Task.detached {
            var seen: Set<Int> = []
            var db: OpaquePointer?
            while running.withLock({ $0 }) {
                if db == nil, FileManager.default.fileExists(atPath: path) {
                    if sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) != SQLITE_OK { sqlite3_close(db); db = nil }
                }
                var stmt: OpaquePointer?
                if let db, sqlite3_prepare_v2(db, "SELECT count(*) FROM ConvergenceItem", -1, &stmt, nil) == SQLITE_OK {
                    if sqlite3_step(stmt) == SQLITE_ROW { seen.insert(Int(sqlite3_column_int64(stmt, 0))) }
                }
                sqlite3_finalize(stmt)
                try? await Task.sleep(for: .milliseconds(1))
            }
            sqlite3_close(db)
            return seen
        }
    }

    /// Stops watching; the counts seen.
    func stop() async -> Set<Int> {
        running.withLock { $0 = false }
        return await task.value
    }
}

/// Serves sync connections through a ``SyncEngine``, pausing `pause` before each bootstrap batch; and, when
/// `errorAfterFirstBatch` is set, sending that message once right after the next bootstrap's first batch.
final class SlowBootstrapHandler: SyncConnectionHandler {
    private let engine: SyncEngine
    private let pauseValue = KillTests.LockedValue(Duration.zero)
    private let injected = KillTests.LockedValue<String?>(nil)
    var pause: Duration {
        get { pauseValue.withLock { $0 } }
        set { pauseValue.withLock { $0 = newValue } }
    }
    var errorAfterFirstBatch: String? {
        get { injected.withLock { $0 } }
        set { injected.withLock { $0 = newValue } }
    }

    init(_ engine: SyncEngine) { self.engine = engine }

    func serve(_ connection: SyncConnection) async {
        let pauseValue = pauseValue
        let injected = injected
        let send: @Sendable (String) async throws -> Void = { text in
            let pause = pauseValue.withLock { $0 }
            let isBatch = text.contains("\"download\"")
                && (text.contains("\"batch\":\"more\"") || text.contains("\"batch\":\"last\""))
            if pause > .zero, isBatch { try await Task.sleep(for: pause) }
            try await connection.send(text)
            if isBatch, text.contains("\"batch\":\"more\""), let error = injected.withLock({ value in
                defer { value = nil }
                return value
            }) {
                try await connection.send(error)
            }
        }
        await engine.serve(SyncConnection(
            user: connection.user, inbound: connection.inbound, send: send, close: connection.close,
            remoteAddress: connection.remoteAddress))
    }
}
