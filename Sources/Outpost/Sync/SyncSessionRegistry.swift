import Foundation

/// The process's sync sessions and subscription trackers, one per synced file. A session starts when its file is
/// first opened and runs until its user logs out (or `suspend()`), or until the app's last Realm of the file closed
/// and its changes are uploaded (it starts again when the file is opened again).
///
/// A session stopped by its user's log-out, or made for a file opened while the user is out, stays, inactive, while
/// a Realm of its file is open (`realm.syncSession` answers it, as in the original), and the same session starts
/// when the user logs in again, unless the app suspended it.
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

    /// The session of a synced configuration, created and started on first use (created inactive while its user is
    /// logged out).
    @discardableResult
    func ensureSession(_ configuration: Realm.Configuration, path: String) -> SyncSession? {
        guard let sync = configuration.syncConfiguration else { return lock.withLock { sessions[path] } }
        let tracker = self.tracker(forPath: path)
        guard sync.user.isLoggedIn else { return inactiveSession(configuration, sync: sync, path: path, tracker: tracker) }
        // A session stopped by the log-out of this same user resumes, unless the app suspended it (a suspension
        // outlasts the login, as the original's paused session); one of a user removed since (a new `User` for the
        // same id) gives way to a new session.
        let (session, start, replaced): (SyncSession, Bool, SyncSession?) = lock.withLock {
            if let s = sessions[path], !s.stoppedByLogOut || s.user === sync.user {
                let revived = s.stoppedByLogOut
                s.stoppedByLogOut = false
                return (s, revived, nil)
            }
            let s = SyncSession(path: path, realmConfiguration: configuration, sync: sync, tracker: tracker)
            let old = sessions.updateValue(s, forKey: path)
            return (s, true, old)
        }
        replaced?.abandonWaits()
        if start { session.startUnlessSuspended() } else { session.instanceOpened() }
        return session
    }

    /// The session of a file opened while its user is logged out: the file's session if it has one, else a new one,
    /// inactive and marked as stopped by the log-out, as after `logOut()` (`realm.syncSession` answers it, as in the
    /// original; it was nil before). The user's next login starts it (``resumeOpenFiles(userId:)``); it is forgotten
    /// when the file's last Realm closes first (``lastInstanceClosed(path:)``).
    private func inactiveSession(_ configuration: Realm.Configuration, sync: SyncConfiguration, path: String,
                                 tracker: SubscriptionTracker) -> SyncSession {
        let (session, made): (SyncSession, Bool) = lock.withLock {
            if let s = sessions[path] { return (s, false) }
            let s = SyncSession(path: path, realmConfiguration: configuration, sync: sync, tracker: tracker)
            s.stoppedByLogOut = true
            sessions[path] = s
            return (s, true)
        }
        // A login that ended since the check above may have looked for this file's session before it was here.
        if made, sync.user.isLoggedIn { return ensureSession(configuration, path: path) ?? session }
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
        drop(session, path: path)
    }

    /// Forgets a session stopped by its user's log-out, if it is still the one of `path`; its `wait(for:)` callers
    /// would wait for ever, so they fail.
    private func drop(_ session: SyncSession, path: String) {
        let dropped: Bool = lock.withLock {
            guard sessions[path] === session, session.stoppedByLogOut else { return false }
            sessions[path] = nil
            return true
        }
        guard dropped else { return }
        // A Realm of the file opened since the count that led here may hold this session already (opened while the
        // user is out, ``inactiveSession``): it is put back for it unless that open made a new one.
        if RealmRegistry.shared.openAppInstanceCount(path: path) > 0 {
            let restored: Bool = lock.withLock {
                guard sessions[path] == nil, session.stoppedByLogOut else { return false }
                sessions[path] = session
                return true
            }
            if restored { return }
        }
        session.abandonWaits()
    }

    /// A local commit (or new subscription set) on `path`: its session uploads it.
    func localChange(path: String) {
        guard let session = lock.withLock({ sessions[path] }) else { return }
        session.agent.localChange()
        session.notifyProgress()
    }

    /// Starts again the sessions of the files of a user that logged in again while Realms of them are open.
    func resumeOpenFiles(userId: String) {
        for configuration in RealmRegistry.shared.openConfigurations() where !configuration.isInternalWorker {
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
    ///
    /// Each session is marked and its stop queued in one step under this registry's lock, where a login's revival
    /// (``ensureSession(_:path:)``) also runs: a revival is ordered after the stop, whatever the timing. A session
    /// stopped for good by a fatal error is forgotten (a login starts a new one).
    func stopSessions(userId: String) async {
        let stopping: [(path: String, session: SyncSession)] = lock.withLock {
            var out: [(String, SyncSession)] = []
            for (path, session) in sessions where session.user.id == userId && !session.user.isLoggedIn {
                if session.state == .invalid { sessions[path] = nil } else { session.stoppedByLogOut = true }
                session.control { await $0.stop() }
                out.append((path, session))
            }
            return out
        }
        for s in stopping { s.session.showLoggedOut() }
        for s in stopping { await s.session.controlSettled() }
        // Kept only for files with open Realms (counted outside this registry's lock: the Realm registry has its own).
        for s in stopping where RealmRegistry.shared.openAppInstanceCount(path: s.path) == 0 {
            drop(s.session, path: s.path)
        }
    }
}
