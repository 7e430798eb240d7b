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

    private var _logLevel: SyncLogLevel = .info
    private var _logger: ((SyncLogLevel, String) -> Void)?

    /// The most detailed level logged (default `.info`).
    public var logLevel: SyncLogLevel {
        get { lock.withLock { _logLevel } }
        set { lock.withLock { _logLevel = newValue } }
    }

    /// Receives the sync client's log lines; nil (the default) writes them to standard error.
    public var logger: ((SyncLogLevel, String) -> Void)? {
        get { lock.withLock { _logger } }
        set { lock.withLock { _logger = newValue } }
    }

    /// Where `errorHandler` is called, one report after the other.
    let callbackQueue = DispatchQueue(label: "outpost.sync.errorHandler")

    init() {}

    /// Logs a line when `level` is enabled (the message is only built then).
    func log(_ level: SyncLogLevel, _ message: @autoclosure () -> String) {
        let (threshold, logger) = lock.withLock { (_logLevel, _logger) }
        guard level != .off, level.rawValue <= threshold.rawValue else { return }
        let text = message()
        if let logger {
            logger(level, text)
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    /// Called by `User.logOut()` and `User.remove()`: stops the user's sessions (and waits until they stopped).
    func userDidLogOut(userId: String) async {
        await SyncSessionRegistry.shared.stopSessions(userId: userId)
    }
}
