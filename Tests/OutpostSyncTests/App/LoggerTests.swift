import Foundation
@testable import Outpost
import Synchronization
import Testing

/// `Logger.shared` receives the sync client's lines of apps without a `SyncManager.logger`, up to its level unless
/// the app's `SyncManager.logLevel` was set. Lines are told apart by a marker (other suites log meanwhile).
@Suite(.serialized) struct LoggerTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func of(_ marker: String) -> [String] { lines.withLock { $0.filter { $0.contains(marker) } } }
    }

    static func app(_ name: String) -> App {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-logger-\(UUID().uuidString)")
        return App(id: "logger-\(name)", configuration: AppConfiguration(baseURL: "http://127.0.0.1:9", rootDirectory: root))
    }

    @Test func theSharedLoggerGetsTheLinesUpToItsLevel() {
        let previous = Logger.shared
        defer { Logger.shared = previous }
        #expect(previous.level == .info)
        let seen = Lines()
        Logger.shared = Logger(level: .debug) { level, message in seen.lines.withLock { $0.append("\(level) \(message)") } }
        let app = Self.app("shared")
        let marker = UUID().uuidString
        #expect(app.syncManager.logLevel == .debug)  // not set: the shared logger's
        app.syncManager.log(.debug, "debug \(marker)")
        app.syncManager.log(.trace, "trace \(marker)")
        #expect(seen.of(marker) == ["debug debug \(marker)"])
        Logger.shared.level = .warn
        app.syncManager.log(.info, "info \(marker)")
        app.syncManager.log(.error, "error \(marker)")
        #expect(seen.of(marker) == ["debug debug \(marker)", "error error \(marker)"])
    }

    @Test func anAppsOwnLevelAndLoggerComeFirst() {
        let previous = Logger.shared
        defer { Logger.shared = previous }
        let shared = Lines()
        Logger.shared = Logger(level: .error) { _, message in shared.lines.withLock { $0.append(message) } }
        let app = Self.app("own")
        let marker = UUID().uuidString
        app.syncManager.logLevel = .detail  // set for this app: its lines pass up to .detail whatever the shared level
        app.syncManager.log(.detail, "detail \(marker)")
        app.syncManager.log(.debug, "debug \(marker)")
        #expect(shared.of(marker) == ["detail \(marker)"])
        let own = Lines()
        app.syncManager.logger = { _, message in own.lines.withLock { $0.append(message) } }
        app.syncManager.log(.info, "info \(marker)")
        #expect(own.of(marker) == ["info \(marker)"])
        #expect(shared.of(marker) == ["detail \(marker)"])
    }

    /// The local database logs too (realm-core's `DB:` lines): opening a file at `.detail`, transactions at `.trace`.
    @Test func theDatabaseLogsItsOpensAndTransactions() throws {
        let previous = Logger.shared
        defer { Logger.shared = previous }
        let seen = Lines()
        let logger = Logger(level: .off) { level, message in seen.lines.withLock { $0.append("\(level) \(message)") } }
        Logger.shared = logger
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-dblog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var config = Realm.Configuration(fileURL: dir.appendingPathComponent("db.realm"))
        config.objectTypes = [LoggedThing.self]
        let marker = dir.lastPathComponent
        _ = try Realm(configuration: config)
        #expect(seen.of(marker).isEmpty)  // .off
        logger.level = .detail
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(LoggedThing()) }
        }
        #expect(seen.of(marker).contains { $0.hasPrefix("detail DB: ") && $0.hasSuffix("Open file: \(dir.path)/db.realm") })
        #expect(!seen.lines.withLock { $0.contains { $0.hasPrefix("trace DB: ") } })
        logger.level = .trace
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(LoggedThing()) }
        #expect(seen.lines.withLock { $0.contains { $0.hasPrefix("trace DB: ") && $0.hasSuffix("Start write transaction") } })
    }
}

final class LoggedThing: Object {
    @Persisted var name = ""
}
