import Foundation
import OutpostCore

/// The sync session of one synced Realm file (`realm.syncSession`): its state, its connection, and ways to pause,
/// resume and wait for it.
public final class SyncSession: @unchecked Sendable {  // state is behind `lock`
    /// Whether the session syncs.
    public enum State: Int, Sendable {
        /// Syncing (or trying to connect).
        case active
        /// Suspended, or its user logged out.
        case inactive
        /// Stopped for good by a fatal error.
        case invalid
    }

    /// The state of the session's connection.
    public enum ConnectionState: Int, Sendable {
        case disconnected
        case connecting
        case connected
    }

    /// What `wait(for:)` and progress notifications are about.
    public enum ProgressDirection: Sendable {
        case upload
        case download
    }

    /// Whether a progress notification keeps reporting or stops once the current work is done.
    public enum ProgressMode: Sendable {
        case reportIndefinitely
        case forCurrentlyOutstandingWork
    }

    /// Progress of uploads or downloads. Uploads are counted in bytes of the queued transactions' changesets (all
    /// acknowledged so far, and those still queued); downloads in server versions since the session connected (the
    /// server announces versions, not bytes, before it sends them).
    public struct Progress: Sendable {
        public let transferredBytes: Int
        public let transferrableBytes: Int
        /// 0…1.
        public var progressEstimate: Double {
            transferrableBytes == 0 ? 1 : min(1, Double(transferredBytes) / Double(transferrableBytes))
        }
        public var fractionTransferred: Double { progressEstimate }
        public var isTransferComplete: Bool { transferredBytes >= transferrableBytes }
    }

    /// Stops a progress notification.
    public final class ProgressNotificationToken: @unchecked Sendable {
        weak var session: SyncSession?
        let id: Int
        init(session: SyncSession, id: Int) {
            self.session = session
            self.id = id
        }
        /// Stops the notifications.
        public func invalidate() { session?.removeProgress(id) }
    }

    /// Outpost-only: the server's verdict on one committed transaction (see `verdict(forTransaction:)`).
    public enum WriteVerdict: @unchecked Sendable {
        /// The server integrated every change of the transaction.
        case accepted
        /// The server reverted these writes with a compensating write (already applied locally).
        case rejected([CompensatingWriteInfo])
    }

    private let lock = NSLock()
    private var _state: State = .inactive
    private var _stoppedByLogOut = false
    /// Suspended by the app (`suspend()`) and not resumed since.
    private var _suspendedByApp = false
    private var _connectionState: ConnectionState = .disconnected
    /// Changes of `state` and `connectionState` not yet told to the observers, in order (``changing(_:)``).
    private var undelivered: [(old: StateSnapshot, new: StateSnapshot)] = []
    /// A thread is telling the observers about changes; others only queue theirs.
    private var isDelivering = false
    private var progressBlocks: [Int: (ProgressDirection, ProgressMode, (Progress) -> Void)] = [:]
    private var nextProgressId = 0
    private var observers: [Int: SessionObserver] = [:]
    private var downloadProgress: (transferred: Int, transferrable: Int)?
    private let progressQueue = DispatchQueue(label: "outpost.sync.progress")
    private var nextObserverId = 0
    /// The last control operation (start, stop, reconnect) handed to the agent; the next one waits for it.
    private var controlTail: Task<Void, Never>?
    let path: String
    let user: User
    private(set) var agent: SyncAgent!

    init(path: String, realmConfiguration: Realm.Configuration, sync: SyncConfiguration, tracker: SubscriptionTracker) {
        self.path = path
        user = sync.user
        agent = SyncAgent(path: path, realmConfiguration: realmConfiguration, sync: sync, tracker: tracker, session: self)
    }

    /// The session's state.
    public var state: State { lock.withLock { _state } }
    /// The connection's state.
    public var connectionState: ConnectionState { lock.withLock { _connectionState } }

    func setState(_ state: State) { changing { $0.state = state } }
    func setConnectionState(_ state: ConnectionState) { changing { $0.connectionState = state } }

    /// The observed properties at one moment.
    struct StateSnapshot: Equatable, Sendable {
        var state: State
        var connectionState: ConnectionState
    }

    /// The observed properties now.
    var stateSnapshot: StateSnapshot { lock.withLock { StateSnapshot(state: _state, connectionState: _connectionState) } }

    /// Makes a change under the lock and queues it for the observers, who get every change once, in order, with the
    /// values before and after it. The thread that finds nobody delivering delivers (outside the lock) until the
    /// queue is empty; the others return at once, so no thread waits while a handler runs, and a handler may change
    /// the state itself (its change is delivered after the current one).
    private func changing(_ change: (inout StateSnapshot) -> Void) {
        let delivers: Bool = lock.withLock {
            let old = StateSnapshot(state: _state, connectionState: _connectionState)
            var new = old
            change(&new)
            _state = new.state
            _connectionState = new.connectionState
            if old != new, !observers.isEmpty { undelivered.append((old, new)) }
            guard !isDelivering, !undelivered.isEmpty else { return false }
            isDelivering = true
            return true
        }
        guard delivers else { return }
        while let (change, watching) = lock.withLock({ () -> ((old: StateSnapshot, new: StateSnapshot), [SessionObserver])? in
            guard !undelivered.isEmpty else {
                isDelivering = false
                return nil
            }
            return (undelivered.removeFirst(), Array(observers.values))
        }) {
            for observer in watching { observer.notify(self, change.old, change.new) }
        }
    }

    func addObserver(_ observer: SessionObserver) -> Int {
        lock.withLock {
            nextObserverId += 1
            observers[nextObserverId] = observer
            return nextObserverId
        }
    }

    /// Forgets an observer. Its handler is released after the lock: it may hold the last reference to a Realm, whose
    /// closing calls back into the session.
    func removeObserver(_ id: Int) {
        let removed = lock.withLock { observers.removeValue(forKey: id) }
        withExtendedLifetime(removed) {}
    }

    /// The user the session syncs as.
    public func parentUser() -> User? { user }

    /// Stops syncing until `resume()`; local writes go on and are uploaded later. As in the original (a paused
    /// session), the suspension outlasts a log-out and the next login: only `resume()` (or an open that downloads
    /// first) ends it.
    public func suspend() {
        // The mark, the state and the stop in one step under the lock, where a login's start
        // (``startUnlessSuspended()``) checks the mark and queues its start: whichever comes first, a suspension
        // that overlaps a login ends suspended.
        changing { snapshot in
            _suspendedByApp = true
            snapshot.state = .inactive
            queueControl { await $0.stop() }
        }
        setConnectionState(.disconnected)
    }

    /// Starts syncing again after `suspend()`. While the session's user is logged out it only ends the suspension
    /// (as in the original): the user's next login starts the session.
    public func resume() {
        start(endingSuspension: true, loggedIn: user.isLoggedIn)
    }

    /// Starts the session for its file's first open or its user's login, unless the app suspended it or its user
    /// logged out since (``SyncSessionRegistry/ensureSession(_:path:)``).
    func startUnlessSuspended() {
        start(endingSuspension: false, loggedIn: true)
    }

    /// Starts the session unless it is invalid, suspended by the app or stopped by its user's log-out; `resume()`
    /// ends the suspension first. The marks are checked and the start queued in one step under the lock where
    /// `suspend()` and the log-out set them.
    private func start(endingSuspension: Bool, loggedIn: Bool) {
        changing { snapshot in
            guard snapshot.state != .invalid else { return }
            if endingSuspension { _suspendedByApp = false }
            guard loggedIn, !_suspendedByApp, !_stoppedByLogOut else { return }
            snapshot.state = .active
            queueControl { await $0.start() }
        }
    }

    /// Logged out: inactive and disconnected at once, before the agent's stop ends, unless a login revived the
    /// session meanwhile (checked under the same lock as the state, so a revival's `.active` is never overwritten).
    func showLoggedOut() {
        changing { snapshot in
            guard _stoppedByLogOut, snapshot.state != .invalid else { return }
            snapshot.state = .inactive
            snapshot.connectionState = .disconnected
        }
    }

    /// The session is forgotten for good (its user logged out and no Realm of its file is open, or a new session
    /// replaced it): its `wait(for:)` callers fail instead of waiting for ever.
    func abandonWaits() {
        control { await $0.abandonWaiters() }
    }

    /// The session was stopped because its user logged out (``SyncSessionRegistry/stopSessions(userId:)``), or made
    /// while the user was out; a login of the user starts it unless the app suspended it
    /// (``SyncSessionRegistry/ensureSession(_:path:)``).
    var stoppedByLogOut: Bool {
        get { lock.withLock { _stoppedByLogOut } }
        set { lock.withLock { _stoppedByLogOut = newValue } }
    }

    /// The app closed its last Realm of the file: as the original's default stop policy (after changes uploaded),
    /// the session stops once everything committed is uploaded — after `connectionLingerTime` more, in which a Realm
    /// opened again finds it still connected (docs/sync-client.md, "Session lifetime").
    func lastInstanceClosed() {
        control { await $0.closeWhenUploaded() }
    }

    /// The app opened a Realm of the file: a session stopped (or stopping) because none was open goes on.
    func instanceOpened() {
        control { await $0.reopened() }
    }

    /// Requests an immediate reconnection when the session is disconnected: what is left of the backoff delay is
    /// skipped. It has no effect while the session is connected, as in the original.
    public func reconnect() {
        control { await $0.reconnect() }
    }

    /// Hands `operation` to the agent after every control operation requested before it, so that `suspend()`
    /// followed at once by `resume()` ends resumed (two independent tasks could reach the agent in either order).
    func control(_ operation: @escaping @Sendable (SyncAgent) async -> Void) {
        lock.withLock { queueControl(operation) }
    }

    /// ``control(_:)`` with the lock held.
    private func queueControl(_ operation: @escaping @Sendable (SyncAgent) async -> Void) {
        let agent = self.agent!
        let previous = controlTail
        controlTail = Task {
            await previous?.value
            await operation(agent)
        }
    }

    /// Waits until the control operations asked for so far have run.
    func controlSettled() async {
        let task = lock.withLock { controlTail }
        await task?.value
    }

    /// Waits until every local change committed so far is acknowledged by the server (`.upload`), or until
    /// everything the server has now is downloaded and applied (`.download`). Outpost also ends the wait when the
    /// calling task is cancelled, with `CancellationError` (the original keeps waiting).
    public func wait(for direction: ProgressDirection) async throws {
        switch direction {
        case .upload: try await agent.waitForUpload()
        case .download: try await agent.waitForDownload()
        }
    }

    /// Outpost-only: waits for the server's verdict on a committed transaction — `.accepted`, or `.rejected` with the
    /// compensating-write info once the revert has been applied locally. `version` is
    /// `realm.lastCommittedSyncTransaction` read right after the commit.
    public func verdict(forTransaction version: Int64) async throws -> WriteVerdict {
        await controlSettled()
        return try await agent.verdict(forTransaction: version)
    }

    /// Calls `block` with upload or download progress after each change.
    public func addProgressNotification(for direction: ProgressDirection, mode: ProgressMode,
                                        block: @escaping (Progress) -> Void) -> ProgressNotificationToken? {
        let id: Int = lock.withLock {
            nextProgressId += 1
            progressBlocks[nextProgressId] = (direction, mode, block)
            return nextProgressId
        }
        notifyProgress()
        return ProgressNotificationToken(session: self, id: id)
    }

    /// Outpost-only (Realm Swift has the callback form, ``addProgressNotification(for:mode:block:)``): the same
    /// reports as an async sequence, for `for await` in a task. With `.forCurrentlyOutstandingWork` it ends after the
    /// report that completes the work; with `.reportIndefinitely` when the task iterating it is cancelled.
    public func progressNotifications(direction: ProgressDirection, mode: ProgressMode) -> AsyncStream<Progress> {
        AsyncStream { continuation in
            let token = addProgressNotification(for: direction, mode: mode) { progress in
                continuation.yield(progress)
                if mode == .forCurrentlyOutstandingWork && progress.isTransferComplete { continuation.finish() }
            }
            continuation.onTermination = { _ in token?.invalidate() }
        }
    }

    /// Forgets a progress block, released after the lock (as in ``removeObserver(_:)``).
    func removeProgress(_ id: Int) {
        let removed = lock.withLock { progressBlocks.removeValue(forKey: id) }
        withExtendedLifetime(removed) {}
    }

    /// Where the download stands: server versions downloaded since the session connected, and to download.
    func setDownloadProgress(transferred: Int, transferrable: Int) {
        lock.withLock { downloadProgress = (transferred, transferrable) }
        notifyProgress()
    }

    /// A new connection: download progress is unknown until its first download.
    func resetDownloadProgress() {
        lock.withLock { downloadProgress = nil }
    }

    /// Reports progress to the notification blocks: after a download, after a commit, and when a block is added.
    /// Reports go out one at a time, in order, on the session's progress queue (as the original calls them).
    func notifyProgress() {
        let (blocks, download) = lock.withLock { (progressBlocks, downloadProgress) }
        guard !blocks.isEmpty else { return }
        let path = self.path
        let call = UncheckedSendable { [weak self] in
            guard let self else { return }
            let wantsUpload = blocks.values.contains { $0.0 == .upload }
            let (pending, acked) = wantsUpload ? SyncProgressReader.counts(path: path) : (0, 0)
            for (id, (direction, mode, block)) in blocks.sorted(by: { $0.key < $1.key }) {
                let progress: Progress
                if direction == .upload {
                    progress = Progress(transferredBytes: acked, transferrableBytes: acked + pending)
                } else if let download {
                    progress = Progress(transferredBytes: download.transferred, transferrableBytes: download.transferrable)
                } else {
                    continue  // nothing downloaded on this connection yet: nothing known
                }
                // A block removed meanwhile (invalidated, or done with its outstanding work) is not called again.
                guard self.lock.withLock({ self.progressBlocks[id] != nil }) else { continue }
                block(progress)
                if mode == .forCurrentlyOutstandingWork && progress.isTransferComplete { self.removeProgress(id) }
            }
        }
        progressQueue.async { call.value() }
    }
}

/// Reads upload progress with a short-lived read-only SQLite connection: bytes of the queued changesets
/// (`queuedBytes`) and bytes acknowledged so far (`uploadedBytes`), both kept in the file with the queue.
enum SyncProgressReader {
    static func counts(path: String) -> (pending: Int, acknowledged: Int) {
        guard let c = try? SQLiteConnection(path: path, readOnly: true) else { return (0, 0) }
        let file = SyncFile(c)
        return (Int((try? file.queuedBytes()) ?? 0), Int((try? file.uploadedBytes()) ?? 0))
    }
}
