import Foundation
import Logging

/// Deletes what the server keeps only for a while: log records older than the retention period, refresh-token
/// sessions that have expired, and `AuditEvent` documents older than the app's `events.retention_days`
/// (``AuditRetention``). Runs when the server starts and then every hour (``OutpostServerApplication``).
///
/// Without it, the `log` table (compensating writes, refused connections, …) and the `sessions` table (one row per
/// login) only ever grew. Atlas App Services keeps its logs for 10 days, the default here too.
public struct Housekeeping: Sendable {
    /// How long log records are kept; nil keeps them for ever.
    public var logRetention: Duration?
    /// How long `AuditEvent` documents are kept after their timestamp; nil keeps them for ever.
    public var eventRetention: Duration?
    public let appId: String
    public let storage: any ServerStorage
    let clock: @Sendable () -> Date
    let logger: Logger

    public init(appId: String, storage: any ServerStorage, logRetention: Duration?, eventRetention: Duration? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "outpost.housekeeping")) {
        self.appId = appId
        self.storage = storage
        self.logRetention = logRetention
        self.eventRetention = eventRetention
        self.clock = clock
        self.logger = logger
    }

    /// What one sweep deleted.
    public struct Sweep: Sendable, Hashable {
        public var logRecords: Int
        public var sessions: Int
        public var auditEvents: Int

        public init(logRecords: Int, sessions: Int, auditEvents: Int = 0) {
            self.logRecords = logRecords
            self.sessions = sessions
            self.auditEvents = auditEvents
        }
    }

    /// Deletes old log records, expired sessions and old audit events once.
    @discardableResult
    public func sweep() async throws -> Sweep {
        let now = clock()
        var deleted = Sweep(logRecords: 0, sessions: 0)
        if let logRetention {
            let seconds = Double(logRetention.components.seconds) + Double(logRetention.components.attoseconds) / 1e18
            deleted.logRecords = try await storage.deleteLogs(appId: appId, before: now.addingTimeInterval(-seconds))
        }
        deleted.sessions = try await storage.deleteExpiredSessions(appId: appId, before: now)
        if let eventRetention {
            let retention = AuditRetention(storage: storage, appId: appId, maxAge: eventRetention)
            deleted.auditEvents = try await retention.sweep(now: now)
        }
        if deleted.logRecords > 0 || deleted.sessions > 0 || deleted.auditEvents > 0 {
            let what = "\(deleted.logRecords) old log record(s), \(deleted.sessions) expired session(s) and "
                + "\(deleted.auditEvents) old audit event(s)"
            logger.info("housekeeping: deleted \(what)")
        }
        return deleted
    }

    /// Sweeps now and then every `interval` until cancelled; a failed sweep is logged and tried again next time.
    public func run(every interval: Duration = .seconds(3_600)) async {
        while !Task.isCancelled {
            do {
                try await sweep()
            } catch {
                logger.warning("housekeeping failed: \(error)")
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
