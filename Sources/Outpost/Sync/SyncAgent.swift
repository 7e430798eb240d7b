import Foundation
import OutpostCore

/// The sync session's engine for one file: it carries out what ``SyncClientStateMachine`` decides. It owns what the
/// machine cannot: the socket and its pings, the file (through ``SyncDatabase``), the bootstrap stream's
/// transaction, the waiters' continuations, the client reset's callbacks, and the loop that connects again after
/// the machine's backoff. docs/sync-client.md describes the protocol; docs/architecture.md the split.
actor SyncAgent {
    let path: String
    let sync: SyncConfiguration
    /// The app's configuration of the file, for the client-reset callbacks' Realms (without initial subscriptions:
    /// opening them must not write).
    let callbackConfiguration: Realm.Configuration
    let database: SyncDatabase
    let tracker: SubscriptionTracker
    nonisolated let sessionNumber: Int
    weak var session: SyncSession?

    var machine: SyncClientStateMachine
    var runTask: Task<Void, Never>?
    var connection: SyncSocket?
    var isInvalid: Bool { machine.isInvalid }

    /// The bootstrap being applied as it arrives (``BootstrapStream``), and its batch being applied.
    var stream: BootstrapStream?
    var streamApply: Task<Void, Error>?
    /// Instructions of the stream's batches: applied, and queued behind them (for the trace).
    var streamApplied = 0
    var streamQueued = 0
    var pingTask: Task<Void, Never>?
    var forceTokenRefresh = false
    /// The wait between two connection attempts; `reconnect()` cuts it short.
    var backoffSleep: Task<Void, Never>?
    let fileLock: SyncFileLock
    /// The continuations of the machine's waiters, by id.
    var downloadContinuations: [UUID: CheckedContinuation<Void, Error>] = [:]
    var uploadContinuations: [UUID: CheckedContinuation<Void, Error>] = [:]
    var verdictContinuations: [UUID: CheckedContinuation<SyncSession.WriteVerdict, Error>] = [:]
    /// Waiting for the next failed connection attempt (`cancelAsyncOpenOnNonFatalErrors`).
    var connectionFailureWaiters: [UUID: CheckedContinuation<Error?, Never>] = [:]
    /// The frozen Realm from before a client reset under way, for `afterReset`.
    var resetBefore: UncheckedSendable<Realm>?
    /// Waiting to stop the session: no Realm of the file is open (``closeWhenUploaded()``).
    var closing: Task<Void, Never>?
    /// Counts close and reopen requests, so that a stop decided before a reopen does not happen.
    var closeGeneration = 0
    /// The session stopped because no Realm of the file was open; opening one starts it again.
    var stoppedByClose = false
    var abandoned = false

    private static let counter = SyncCounter()

    init(path: String, realmConfiguration: Realm.Configuration, sync: SyncConfiguration, tracker: SubscriptionTracker,
         session: SyncSession) {
        self.path = path
        self.sync = sync
        self.tracker = tracker
        self.session = session
        var callbackConfiguration = realmConfiguration
        callbackConfiguration.syncConfiguration?.initialSubscriptions = nil
        callbackConfiguration.syncConfiguration?.rerunOnOpen = false
        self.callbackConfiguration = callbackConfiguration
        database = SyncDatabase(configuration: realmConfiguration)
        let number = SyncAgent.counter.next()
        sessionNumber = number
        fileLock = SyncFileLock(realmPath: path)
        machine = SyncClientStateMachine(settings: .init(
            path: path, flexibleSync: sync.enableFlexibleSync, partition: sync.partitionProtocolValue,
            heldDownloadMemoryLimit: sync.heldDownloadMemoryLimit, clientResetMode: sync.clientResetMode,
            sessionNumber: number))
    }

    var manager: SyncManager { sync.user.app.syncManager }
    /// The app's sync timeouts (`AppConfiguration.syncTimeouts`; Realm's defaults without).
    var timeouts: SyncTimeoutOptions { sync.user.app.configuration.syncTimeouts ?? SyncTimeoutOptions() }
    static func nextConnectionNumber() -> Int { counter.nextConnection() }

    // MARK: Control

    func start() {
        stoppedByClose = false
        guard runTask == nil, !isInvalid else { return }
        session?.setState(.active)
        runTask = Task { await self.run() }
    }

    /// Stops syncing (suspend, log out, close); waiters of `wait(for:)` stay until it resumes. Downloads held back
    /// for a later message are dropped (the server sends them again).
    func stop() async {
        closing?.cancel()
        closing = nil
        stoppedByClose = false
        let task = runTask
        runTask = nil
        task?.cancel()
        connection?.close()
        connection = nil
        await task?.value
        guard runTask == nil else { return }  // started again while this stop waited
        await cancelStream()
        // Only when this connection stored some (the file may be gone after a stop: nothing must open it again).
        if task != nil, machine.held.stored > 0 {
            try? await database.perform { instance in
                if try instance.syncFile.hasHeldDownloads() { try instance.syncWrite { try $0.dropHeldDownloads() } }
            }
        }
        machine.stopped()
        fileLock.release()
        if !isInvalid { session?.setState(.inactive) }
        session?.setConnectionState(.disconnected)
    }

    /// The app's last Realm of the file closed: once the server has acknowledged everything committed so far and
    /// `connectionLingerTime` has passed with no Realm opened again, the session stops (``SyncSession/lastInstanceClosed()``).
    func closeWhenUploaded() {
        guard runTask != nil, closing == nil, !isAppFileOpen else { return }
        closeGeneration += 1
        let generation = closeGeneration
        let linger = Duration.milliseconds(Int(timeouts.connectionLingerTime))
        closing = Task {
            do {
                try await self.waitForUpload()
                try await Task.sleep(for: linger)
            } catch {
                // A Realm was opened again, or the session stopped or became invalid; a later close tries again.
                if generation == closeGeneration { closing = nil }
                return
            }
            await self.session?.control { await $0.stopAfterClose(generation) }
        }
    }

    /// Whether the app has a Realm of the file open (a close and an open can cross on two threads: the open's
    /// Realm is registered before it tells the session, so this sees it).
    private var isAppFileOpen: Bool { RealmRegistry.shared.openAppInstanceCount(path: path) > 0 }

    private func stopAfterClose(_ generation: Int) async {
        guard generation == closeGeneration, closing != nil else { return }  // opened again meanwhile
        closing = nil
        guard !isAppFileOpen else { return }
        manager.log(.debug, "Sync: Session[\(sessionNumber)]: stopped: no Realm of the file is open and its changes are uploaded")
        await stop()
        if runTask == nil { stoppedByClose = true }
    }

    /// A Realm of the file was opened: the session goes on (or starts again, if it stopped because none was open).
    func reopened() {
        closeGeneration += 1
        closing?.cancel()
        closing = nil
        if stoppedByClose { start() }
    }

    /// Connects again at once when disconnected, skipping what is left of the backoff delay; no effect while
    /// connected (the original's documented behaviour).
    func reconnect() {
        guard connection == nil, machine.reconnectRequested() else { return }
        backoffSleep?.cancel()
    }

    /// A local commit or a new subscription set: upload it.
    nonisolated func localChange() {
        Task { await self.injectLocalChange() }
    }

    private func injectLocalChange() {
        connection?.inject(.localChange)
    }

    // MARK: Run loop

    private func run() async {
        var waitingForLock = false
        while !Task.isCancelled && !isInvalid {
            if !fileLock.tryAcquire() {
                if !waitingForLock {
                    manager.log(.info, "Sync: Session[\(sessionNumber)]: another process syncs \(path); this one waits and "
                        + "takes over when it closes")
                    waitingForLock = true
                }
                await followTheSyncingProcess()
                try? await Task.sleep(for: .milliseconds(250))
                continue
            }
            waitingForLock = false
            let ending: SyncClientStateMachine.Ending
            do {
                try await serveConnection()
                ending = .closed
            } catch is CancellationError {
                break
            } catch let error as BootstrapStreamInterrupted {
                ending = .streamInterrupted(error)
            } catch let error as SQLiteError {
                ending = .fileFailure("\(error)")
            } catch let error as Realm.Error {
                ending = .fileFailure(error.message)
            } catch let error as HeldDownloadUnreadable {
                ending = .unreadableDownload("\(error)")
            } catch {
                if let error = error as? SyncSocket.ConnectError { reportConnectionFailure(error.description, isTimeout: error.isTimeout) }
                ending = .other("\(error)")
            }
            await cancelStream()
            connection = nil
            session?.setConnectionState(.disconnected)
            let (actions, delay) = machine.connectionEnded(ending, at: Date(), jitter: Double.random(in: 0...0.25))
            try? await perform(actions)
            if Task.isCancelled || isInvalid { break }
            if delay == .zero { continue }
            let sleep = Task<Void, Never> { _ = try? await Task.sleep(for: delay) }
            backoffSleep = sleep
            await withTaskCancellationHandler { await sleep.value } onCancel: { sleep.cancel() }
            backoffSleep = nil
        }
        await cancelStream()
        // A session ended by a fatal error syncs no more: another process (or a new session after log-in) may
        // take the file over. Before, the lock stayed until log-out or exit.
        if isInvalid { fileLock.release() }
    }

    /// While another process syncs the file: what it finished reaches this process's waiters — subscription sets
    /// from the file's states, uploads and verdicts from its acknowledgement and the refused writes recorded with it
    /// (the other process uploads this one's commits too).
    private func followTheSyncingProcess() async {
        // The rejections of the versions the acknowledgement moves past are read with it; those below were read
        // when it passed them.
        let known = machine.uploadAck
        guard let (states, ack, recorded) = try? await database.perform({ instance in
            let file = instance.syncFile
            let ack = try file.uploadAck()
            return (try file.subscriptionStates(), ack, ack > known ? try file.rejections(after: known) : [:])
        }) else { return }
        tracker.refresh(from: states)
        try? await perform(machine.followed(uploadAck: ack, recorded: recorded))
    }
}

/// Process-wide numbers for log lines (`Connection[n]`, `Session[n]`).
final class SyncCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions = 0
    private var connections = 0
    func next() -> Int { lock.withLock { sessions += 1; return sessions } }
    func nextConnection() -> Int { lock.withLock { connections += 1; return connections } }
}

enum SyncURL {
    /// `ws://host:port/api/client/v2.0/app/<app id>/realm-sync` for an `http://host:port` base URL.
    static func realmSync(baseURL: URL, appId: String) -> String {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasPrefix("https://") { text = "wss://" + text.dropFirst(8) } else if text.hasPrefix("http://") {
            text = "ws://" + text.dropFirst(7)
        }
        let app = appId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? appId
        return text + "/api/client/v2.0/app/\(app)/realm-sync"
    }
}

/// Carries a value the compiler cannot prove `Sendable` (a user's callback) to the queue that calls it.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
