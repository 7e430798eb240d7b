import Foundation

/// The sync side of an ``App``: the error handler every synced Realm's session reports to, and the
/// sessions themselves. `app.syncManager`, as in Realm Swift.
public final class SyncManager: @unchecked Sendable {
    private let lock = NSLock()
    private var _errorHandler: ((Error, SyncSession?) -> Void)?

    /// Receives every session error, including `.writeRejected` compensating writes. May be called more than once
    /// and from any thread.
    public var errorHandler: ((Error, SyncSession?) -> Void)? {
        get { lock.withLock { _errorHandler } }
        set { lock.withLock { _errorHandler = newValue } }
    }

    private var _logLevel: SyncLogLevel?
    private var _logger: ((SyncLogLevel, String) -> Void)?

    /// The most detailed level logged: until set, `Logger.shared`'s level (`.info` by default).
    public var logLevel: SyncLogLevel {
        get { lock.withLock { _logLevel } ?? SyncLogLevel(rawValue: Int(Logger.shared.level.rawValue)) ?? .info }
        set { lock.withLock { _logLevel = newValue } }
    }

    /// Receives the sync client's log lines; nil (the default) passes them to `Logger.shared` (standard error unless
    /// replaced).
    public var logger: ((SyncLogLevel, String) -> Void)? {
        get { lock.withLock { _logger } }
        set { lock.withLock { _logger = newValue } }
    }

    /// Where `errorHandler` is called, one report after the other.
    let callbackQueue = DispatchQueue(label: "outpost.sync.errorHandler")

    init() {}

    /// Logs a line when `level` is enabled (the message is only built then).
    func log(_ level: SyncLogLevel, _ message: @autoclosure () -> String) {
        let (ownLevel, logger) = lock.withLock { (_logLevel, _logger) }
        // This app's level once set, else the shared logger's, decides.
        let threshold = ownLevel ?? SyncLogLevel(rawValue: Int(Logger.shared.level.rawValue)) ?? .info
        guard level != .off, level.rawValue <= threshold.rawValue else { return }
        if let logger {
            logger(level, message())
        } else if let shared = LogLevel(rawValue: UInt(level.rawValue)) {
            Logger.shared.pass(shared, message())
        }
    }

    /// Called by `User.logOut()` and `User.remove()`: stops the user's sessions (and waits until they stopped).
    func userDidLogOut(userId: String) async {
        await SyncSessionRegistry.shared.stopSessions(userId: userId)
    }
}
