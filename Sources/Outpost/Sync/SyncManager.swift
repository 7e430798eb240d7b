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

    init() {}

    /// Called by `User.logOut()` and `User.remove()`: stops the user's sessions.
    func userDidLogOut(userId: String) {
        // Filled in by the sync layer.
    }
}
