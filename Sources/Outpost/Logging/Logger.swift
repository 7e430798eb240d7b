import Foundation
import Synchronization

/// How much is logged (Realm's `LogLevel`), least to most detailed.
public enum LogLevel: UInt, Sendable {
    case off = 0
    case fatal = 1
    case error = 2
    case warn = 3
    case info = 4
    case detail = 5
    case debug = 6
    case trace = 7
    case all = 8
}

/// Where Outpost's log lines go (Realm's `Logger`): `Logger.shared` receives the sync client's lines of every app
/// whose `SyncManager` has no `logger` of its own, up to its `level`.
///
/// ```swift
/// Logger.shared = Logger(level: .debug) { level, message in print("Realm:", level, message) }
/// ```
public final class Logger: Sendable {
    private let state: Mutex<LogLevel>
    private let logFunction: @Sendable (LogLevel, String) -> Void

    /// The most detailed level this logger passes on.
    public var level: LogLevel {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// A logger that calls `logFunction` (on an arbitrary thread) with each line up to `level`.
    public init(level: LogLevel, logFunction: @escaping @Sendable (LogLevel, String) -> Void) {
        state = Mutex(level)
        self.logFunction = logFunction
    }

    private static let current = Mutex(Logger(level: .info) { _, message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    })

    /// The logger in use (by default: `.info`, to standard error).
    public static var shared: Logger {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Passes a line on whatever this logger's level (the caller's threshold, ``SyncManager/logLevel``, decided).
    func pass(_ level: LogLevel, _ message: String) {
        logFunction(level, message)
    }

    /// A line of the local database (realm-core's `DB:` lines) to `Logger.shared`, when its level admits `level`.
    static func database(_ level: LogLevel, _ message: @autoclosure () -> String) {
        let logger = shared
        guard level.rawValue <= logger.level.rawValue else { return }
        logger.pass(level, "DB: " + message())
    }
}
