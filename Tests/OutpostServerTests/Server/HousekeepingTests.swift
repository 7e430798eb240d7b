import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Old log records and expired sessions are deleted (``Housekeeping``), on every driver.
@Suite struct HousekeepingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Log records older than the retention and sessions that expired are gone after a sweep; newer ones and
    /// other apps' records stay. With no retention the log is kept whole.
    @Test(arguments: Driver.enabled)
    func aSweepDeletesOldLogsAndExpiredSessions(driver: Driver) async throws {
        try await driver.withStorage { storage in
            let app = "housekeeping-\(UUID().uuidString)"
            let day = 86_400.0
            for age: Double in [30, 11, 9, 0.5] {
                try await storage.appendLog(LogRecord(
                    appId: app, time: Self.now.addingTimeInterval(-age * day), kind: "sync", level: "info", message: "\(age) days old"))
            }
            try await storage.insertSession(StoredSession(appId: app, id: "old", userId: "u", expiresAt: Self.now.addingTimeInterval(-day)))
            try await storage.insertSession(StoredSession(appId: app, id: "live", userId: "u", expiresAt: Self.now.addingTimeInterval(day)))

            let keepAll = Housekeeping(appId: app, storage: storage, logRetention: nil, clock: { Self.now })
            #expect(try await keepAll.sweep() == Housekeeping.Sweep(logRecords: 0, sessions: 1))
            #expect(try await storage.logs(appId: app, kind: nil, since: nil, until: nil, limit: 10).count == 4)

            let tenDays = Housekeeping(appId: app, storage: storage, logRetention: .seconds(10 * 86_400), clock: { Self.now })
            #expect(try await tenDays.sweep() == Housekeeping.Sweep(logRecords: 2, sessions: 0))
            let kept = try await storage.logs(appId: app, kind: nil, since: nil, until: nil, limit: 10).map(\.message)
            #expect(kept == ["9.0 days old", "0.5 days old"])
            #expect(try await storage.session(appId: app, id: "old") == nil)
            #expect(try await storage.session(appId: app, id: "live") != nil)
        }
    }

    /// The server sweeps when it starts: a log record from before the retention, written while it was down, is
    /// gone once it runs, and an expired session too.
    @Test func theServerSweepsWhenItStarts() async throws {
        let storage = MemoryStorage()
        let app = AppDefinition.development(appId: "sweep-at-start")
        let old = LogRecord(appId: app.appId, time: Date().addingTimeInterval(-20 * 86_400), kind: "sync", level: "info", message: "old")
        let recent = LogRecord(appId: app.appId, time: Date().addingTimeInterval(-60), kind: "sync", level: "info", message: "recent")
        try await storage.appendLog(old)
        try await storage.appendLog(recent)
        try await storage.insertSession(StoredSession(appId: app.appId, id: "expired", userId: "u", expiresAt: Date().addingTimeInterval(-60)))
        try await withTestServer(configuration: app, storage: storage) { server in
            let deadline = ContinuousClock.now + .seconds(20)
            while try await storage.logs(appId: app.appId, kind: nil, since: nil, until: nil, limit: 10).count > 1,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await storage.logs(appId: app.appId, kind: nil, since: nil, until: nil, limit: 10) == [recent])
            #expect(try await storage.session(appId: app.appId, id: "expired") == nil)
            #expect(try await server.client.get("/health").status == 200)
        }
    }

    /// A negative retention is refused on the command line, naming the flag.
    @Test func aNegativeRetentionIsRefused() async throws {
        let errors = Pipe()
        let process = try ChildProcess(executable: try OutpostServerProcess.executableURL(),
                                       arguments: ["--port", "0", "--log-retention-days=-3"],
                                       standardOutput: Pipe(),
                                       standardError: errors)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(text.contains("--log-retention-days must be 0 (keep the log for ever) or more, not -3"), "\(text)")
    }
}
