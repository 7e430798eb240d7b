import Foundation

/// The process's sync sessions and subscription trackers, one per synced file. A session starts when its file is
/// first opened and runs until its user logs out (or `suspend()`), or until the app's last Realm of the file closed
/// and its changes are uploaded (it starts again when the file is opened again).
///
/// A session stopped by its user's log-out stays, inactive, while a Realm of its file is open (`realm.syncSession`
/// answers it, as in the original), and the same session resumes when the user logs in again.
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

    /// The session of `path` that syncs or can be resumed; nil when there is none or its user logged out.
    func session(forPath path: String) -> SyncSession? {
        lock.withLock { sessions[path] }.flatMap { $0.stoppedByLogOut ? nil : $0 }
    }

    /// The session of `path`, also one stopped by its user's log-out (`realm.syncSession`).
    func anySession(forPath path: String) -> SyncSession? {
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
        // A session stopped by the log-out of this same user resumes; one of a user removed since (a new `User`
        // for the same id) gives way to a new session.
        let (session, start): (SyncSession, Bool) = lock.withLock {
            if let s = sessions[path], !s.stoppedByLogOut || s.user === sync.user {
                let revived = s.stoppedByLogOut
                s.stoppedByLogOut = false
                return (s, revived)
            }
            let s = SyncSession(path: path, realmConfiguration: configuration, sync: sync, tracker: tracker)
            sessions[path] = s
            return (s, true)
        }
        if start { session.resume() } else { session.instanceOpened() }
        return session
    }

    /// The app closed its last Realm of `path` (``SyncSession/lastInstanceClosed()``).
    func lastInstanceClosed(path: String) {
        guard let session = lock.withLock({ sessions[path] }) else { return }
        guard session.stoppedByLogOut else {
            session.lastInstanceClosed()
            return
        }
        // A logged-out user's session is kept only for the file's open Realms (told from another thread: one may
        // have been opened since).
        guard RealmRegistry.shared.openAppInstanceCount(path: path) == 0 else { return }
        lock.withLock {
            if sessions[path] === session, session.stoppedByLogOut { sessions[path] = nil }
        }
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

    /// Stops every session of a user (log out, remove). A session whose file has open Realms stays, inactive, for
    /// them (`realm.syncSession`) and resumes when the user logs in again; the others are forgotten.
    func stopSessions(userId: String) async {
        let matching = lock.withLock { sessions.filter { $0.value.user.id == userId } }
        // Counted outside this registry's lock (the Realm registry has a lock of its own).
        let open = Set(matching.keys.filter { RealmRegistry.shared.openAppInstanceCount(path: $0) > 0 })
        let stopping: [SyncSession] = lock.withLock {
            for (path, session) in matching where sessions[path] === session {
                if open.contains(path) { session.stoppedByLogOut = true } else { sessions[path] = nil }
            }
            return Array(matching.values)
        }
        for s in stopping {
            s.setState(.inactive)
            s.setConnectionState(.disconnected)
            await s.stopAndWait()
        }
    }
}
