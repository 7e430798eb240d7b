import Foundation

/// The process's sync sessions and subscription trackers, one per synced file. A session starts when its file is
/// first opened and runs until its user logs out (or `suspend()`), or until the app's last Realm of the file closed
/// and its changes are uploaded (it starts again when the file is opened again).
final class SyncSessionRegistry: @unchecked Sendable {
    static let shared = SyncSessionRegistry()
    private let lock = NSLock()
    private var sessions: [String: SyncSession] = [:]
    private var trackers: [String: SubscriptionTracker] = [:]

    func tracker(forPath path: String) -> SubscriptionTracker {
        lock.withLock {
            if let t = trackers[path] { return t }
            let t = SubscriptionTracker()
            trackers[path] = t
            return t
        }
    }

    func session(forPath path: String) -> SyncSession? {
        lock.withLock { sessions[path] }
    }

    /// The session of a synced configuration, created and started on first use.
    @discardableResult
    func ensureSession(_ configuration: Realm.Configuration, path: String) -> SyncSession? {
        // A logged-out user's file has no session (as after `logOut()`); logging in again starts it
        // (`resumeOpenFiles`). A session made now would stay unstarted after that login.
        guard let sync = configuration.syncConfiguration, sync.user.isLoggedIn else {
            return lock.withLock { sessions[path] }
        }
        let tracker = self.tracker(forPath: path)
        let (session, isNew): (SyncSession, Bool) = lock.withLock {
            if let s = sessions[path] { return (s, false) }
            let s = SyncSession(path: path, realmConfiguration: configuration, sync: sync, tracker: tracker)
            sessions[path] = s
            return (s, true)
        }
        if isNew { session.resume() } else { session.instanceOpened() }
        return session
    }

    /// The app closed its last Realm of `path` (``SyncSession/lastInstanceClosed()``).
    func lastInstanceClosed(path: String) {
        lock.withLock { sessions[path] }?.lastInstanceClosed()
    }

    /// A local commit (or new subscription set) on `path`: its session uploads it.
    func localChange(path: String) {
        guard let session = lock.withLock({ sessions[path] }) else { return }
        session.agent.localChange()
        session.notifyProgress()
    }

    /// Starts again the sessions of the files of a user that logged in again while Realms of them are open.
    func resumeOpenFiles(userId: String) {
        for configuration in RealmRegistry.shared.openConfigurations() where !configuration.isSyncWorker {
            guard let sync = configuration.syncConfiguration, sync.user.id == userId else { continue }
            ensureSession(configuration, path: configuration.resolvedPath)
        }
    }

    /// Forgets the session of `path` (a file moved away by a manual client reset): the next open starts a new one.
    func forget(path: String) {
        let session = lock.withLock { sessions.removeValue(forKey: path) }
        session?.suspend()
    }

    /// Stops and forgets every session of a user (log out, remove).
    func stopSessions(userId: String) async {
        let stopping: [SyncSession] = lock.withLock {
            let matching = sessions.filter { $0.value.user.id == userId }
            for key in matching.keys { sessions[key] = nil }
            return Array(matching.values)
        }
        for s in stopping {
            s.setState(.inactive)
            s.setConnectionState(.disconnected)
            await s.stopAndWait()
        }
    }
}
