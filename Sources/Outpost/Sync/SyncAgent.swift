import Foundation
import OutpostCore

/// The sync session's engine for one file: connects, binds, uploads the queue in order (interleaving subscription
/// sets at the point they were committed), applies downloads, completes subscription sets, reports errors, and
/// reconnects with exponential backoff and jitter. docs/sync-client.md describes it.
actor SyncAgent {
    private enum MarkPurpose { case query(Int64), download }

    let path: String
    let sync: SyncConfiguration
    /// The app's configuration of the file, for the client-reset callbacks' Realms (without initial subscriptions:
    /// opening them must not write).
    private let callbackConfiguration: Realm.Configuration
    let database: SyncDatabase
    let tracker: SubscriptionTracker
    nonisolated let sessionNumber: Int
    private weak var session: SyncSession?

    private var runTask: Task<Void, Never>?
    private var connection: SyncConnection?
    private var connectionNumber = 0
    private(set) var isInvalid = false

    // Per connection.
    private var fileIdent: Int64?
    private var lastSentClientVersion: Int64 = 0
    private var lastSentQueryVersion: Int64 = 0
    /// Downloads held back until the message that completes them (``HeldDownloads``).
    private var held = HeldDownloads()
    private var isBootstrapping = false
    /// The bootstrap being applied as it arrives (``BootstrapStream``), and its batch being applied.
    private var stream: BootstrapStream?
    private var streamApply: Task<Void, Error>?
    /// Instructions of the stream's batches: applied, and queued behind them (for the trace).
    private var streamApplied = 0
    private var streamQueued = 0
    private var markRequests: [Int64: MarkPurpose] = [:]
    private var nextRequestId: Int64 = 1
    private var pendingCompensations: [SyncErrorInfo] = []
    /// The cursor and acknowledgement of the last download on this connection.
    private var lastDownload: (cursor: DownloadCursor, ack: Int64)?
    /// Download progress: the cursor's server version when the connection began, and the latest the server announced.
    private var downloadBase: Int64 = 0
    private var announcedLatest: Int64 = 0
    /// When the connection opened or the last ping went out, and the ping still waiting for its pong.
    private var keepalive = SyncKeepalive(pingPeriod: 60_000, pongTimeout: 120_000, connectedAt: Date())
    private var pingTask: Task<Void, Never>?

    // Across connections.
    private var uploadAck: Int64 = 0
    private var downloadedServerVersion: Int64 = 0
    /// `wait(for: .download)` callers, by id: each is resumed by the answer to a download mark sent after it began
    /// waiting (a mark numbered `firstMark` or later).
    private var downloadWaiters: [UUID: (firstMark: Int64, continuation: CheckedContinuation<Void, Error>)] = [:]
    /// `wait(for: .upload)` callers, by id, with the client version the server must acknowledge.
    private var uploadWaiters: [UUID: (target: Int64, continuation: CheckedContinuation<Void, Error>)] = [:]
    private var forceTokenRefresh = false
    /// Connection attempts in a row that did not get as far as the server accepting the session (an IDENT or a
    /// DOWNLOAD): the backoff grows with it. A server that accepts sockets but fails every session is backed off
    /// from like an unreachable one.
    private var failedAttempts = 0
    /// The wait between two connection attempts; `reconnect()` cuts it short.
    private var backoffSleep: Task<Void, Never>?
    private let fileLock: SyncFileLock
    /// Rejected writes reported so far, by client version, for `verdict(forTransaction:)`.
    private var rejections: [Int64: [CompensatingWriteInfo]] = [:]
    private var verdictWaiters: [(version: Int64, continuation: CheckedContinuation<SyncSession.WriteVerdict, Error>)] = []
    /// A client reset under way (see ``clientReset(_:_:)``).
    private var reset: ResetProgress?
    /// The next connection starts at once, without a backoff delay (a client reset closed the last one).
    private var skipBackoff = false
    /// Waiting to stop the session: no Realm of the file is open (``closeWhenUploaded()``).
    private var closing: Task<Void, Never>?
    /// Counts close and reopen requests, so that a stop decided before a reopen does not happen.
    private var closeGeneration = 0
    /// The session stopped because no Realm of the file was open; opening one starts it again.
    private var stoppedByClose = false
    /// Bootstraps in a row that failed on a stored batch that could not be read (the backoff grows with them).
    private var unreadableHeldDownloads = 0
    /// Connections in a row that ended because the session could not read or write its file (the backoff grows with
    /// them; the first is reported to the error handler), and when the last one did.
    private var fileFailures = 0
    private var lastFileFailure: Date?

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
        sessionNumber = SyncAgent.counter.next()
        fileLock = SyncFileLock(realmPath: path)
    }

    private var manager: SyncManager { sync.user.app.syncManager }
    /// The app's sync timeouts (`AppConfiguration.syncTimeouts`; Realm's defaults without).
    private var timeouts: SyncTimeoutOptions { sync.user.app.configuration.syncTimeouts ?? SyncTimeoutOptions() }
    /// Waiting for the next failed connection attempt (`cancelAsyncOpenOnNonFatalErrors`).
    private var connectionFailureWaiters: [UUID: CheckedContinuation<Error?, Never>] = [:]

    /// The error of the next connection attempt that fails to connect (the server unreachable, the connect timeout
    /// passed): POSIX `ETIMEDOUT` for a timeout, `SyncError` `.connectionFailed` otherwise, as the original reports
    /// them; nil when the waiting task is cancelled. An asynchronous open with `cancelAsyncOpenOnNonFatalErrors`
    /// fails with it.
    ///
    /// The waiter is registered before the session skips what is left of a backoff wait (`reconnect()`), so that the
    /// attempt this starts cannot fail unseen.
    func nextConnectionFailure() async -> Error? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: nil)
                } else {
                    connectionFailureWaiters[id] = continuation
                    reconnect()
                }
            }
        } onCancel: {
            Task { await self.stopWaitingForConnectionFailure(id) }
        }
    }

    private func stopWaitingForConnectionFailure(_ id: UUID) {
        connectionFailureWaiters.removeValue(forKey: id)?.resume(returning: nil)
    }

    private func reportConnectionFailure(_ description: String, isTimeout: Bool) {
        guard !connectionFailureWaiters.isEmpty else { return }
        let reported: Error = isTimeout
            ? NSError(domain: NSPOSIXErrorDomain, code: Int(ETIMEDOUT), userInfo: [NSLocalizedDescriptionKey: description])
            : SyncError(.connectionFailed, description)
        let waiters = connectionFailureWaiters.values
        connectionFailureWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: reported) }
    }

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
        if task != nil, held.stored > 0 { try? await database.perform { try $0.syncDropHeldDownloads() } }
        held = HeldDownloads()
        isBootstrapping = false
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
        guard connection == nil else { return }
        failedAttempts = 0
        backoffSleep?.cancel()
    }

    /// A local commit or a new subscription set: upload it.
    nonisolated func localChange() {
        Task { await self.injectLocalChange() }
    }

    private func injectLocalChange() {
        connection?.inject(.localChange)
    }

    // MARK: Waiting

    /// Waits until everything the server has now is downloaded.
    /// A cancelled caller stops waiting at once, with `CancellationError`.
    func waitForDownload() async throws {
        await session?.controlSettled()
        if isInvalid { throw SyncError(.clientSessionError, "The sync session is invalid.") }
        if abandoned { throw Self.abandonedError }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                downloadWaiters[id] = (nextRequestId, continuation)
                if connection != nil, fileIdent != nil, reset == nil { sendMark(.download) }
            }
        } onCancel: {
            Task { await self.stopWaiting(id) }
        }
    }

    /// Waits until every transaction committed so far is acknowledged by the server.
    func waitForUpload() async throws {
        await session?.controlSettled()
        if isInvalid { throw SyncError(.clientSessionError, "The sync session is invalid.") }
        if abandoned { throw Self.abandonedError }
        let target = try await database.perform { try SyncStore.lastClientVersion($0.connection) }
        if abandoned { throw Self.abandonedError }  // abandoned while the target was read
        if uploadAck >= target { return }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                uploadWaiters[id] = (target, continuation)
                connection?.inject(.localChange)
            }
        } onCancel: {
            Task { await self.stopWaiting(id) }
        }
    }

    /// The session is forgotten for good (``SyncSession/abandonWaits()``): every `wait(for:)` caller fails.
    func abandonWaiters() {
        abandoned = true
        let error = Self.abandonedError
        let waiters = downloadWaiters.values.map(\.continuation) + uploadWaiters.values.map(\.continuation)
        downloadWaiters.removeAll()
        uploadWaiters.removeAll()
        for continuation in waiters { continuation.resume(throwing: error) }
    }

    private var abandoned = false
    private static var abandonedError: SyncError {
        SyncError(.clientSessionError, "The sync session stopped: its user logged out and no Realm of its file is open.")
    }

    /// A cancelled `wait(for:)` caller: it stops waiting (if it still does).
    private func stopWaiting(_ id: UUID) {
        downloadWaiters.removeValue(forKey: id)?.continuation.resume(throwing: CancellationError())
        uploadWaiters.removeValue(forKey: id)?.continuation.resume(throwing: CancellationError())
    }

    private func failWaiters(_ error: Error) {
        for w in verdictWaiters { w.continuation.resume(throwing: error) }
        verdictWaiters.removeAll()
        for w in downloadWaiters.values { w.continuation.resume(throwing: error) }
        downloadWaiters.removeAll()
        for w in uploadWaiters.values { w.continuation.resume(throwing: error) }
        uploadWaiters.removeAll()
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
            do {
                try await serveConnection()
            } catch is CancellationError {
                break
            } catch let error as BootstrapStreamInterrupted {
                manager.log(.info, "Sync: Connection[\(connectionNumber)]: \(error)")
                if error.givesWay { skipBackoff = true }
            } catch let error as SQLiteError {
                fileFailure("\(error)")
            } catch let error as Realm.Error {
                fileFailure(error.message)
            } catch let error as HeldDownloadUnreadable {
                // The server sent a batch that cannot be read (only its envelope was read on arrival): the whole
                // bootstrap is rolled back. It will come again, so the backoff grows with each failure.
                manager.log(.error, "Sync: Connection[\(connectionNumber)]: bad message from the server: \(error)")
                unreadableHeldDownloads += 1
                failedAttempts = max(failedAttempts, unreadableHeldDownloads)
            } catch {
                manager.log(.info, "Sync: Connection[\(connectionNumber)]: \(error)")
                if let error = error as? SyncConnection.ConnectError { reportConnectionFailure(error.description, isTimeout: error.isTimeout) }
            }
            await cancelStream()
            connection = nil
            session?.setConnectionState(.disconnected)
            if Task.isCancelled || isInvalid { break }
            if skipBackoff {
                skipBackoff = false
                continue
            }
            let delay = SyncBackoff.delay(attempt: failedAttempts)
            // A growing wait is what stalls an upload for tens of seconds: say so where logs are kept (info).
            if failedAttempts > 0 {
                manager.log(.info, "Sync: Session[\(sessionNumber)]: connecting again in \(delay) (\(failedAttempts + 1) attempts in a row)")
            }
            failedAttempts += 1
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
    /// from the file's states, and uploads from its acknowledgement (the other process uploads this one's commits
    /// too). Before, they waited until this process took over, and the subscription waiters for ever: the server
    /// does not bootstrap again a set it already completed.
    ///
    /// Verdicts too: the other process records refused writes with the download that reverts them, in the same
    /// transaction as the acknowledgement, so one read sees both (before, `verdict(forTransaction:)` waited here
    /// until this process took over).
    private func followTheSyncingProcess() async {
        // The rejections of the versions the acknowledgement moves past are read with it (so that a verdict asked for
        // later finds them); those below were read when it passed them.
        let known = uploadAck
        guard let (states, ack, recorded) = try? await database.perform({ instance in
            let ack = try SyncStore.integer(instance.connection, "uploadAck") ?? 0
            return (try instance.syncSubscriptionStates(), ack,
                    ack > known ? try SyncStore.rejections(instance.connection, after: known) : [:])
        }) else { return }
        tracker.refresh(from: states)
        for (version, updates) in recorded where rejections[version] == nil {
            rejections[version] = updates.map(Self.compensatingWriteInfo)
        }
        if ack > uploadAck {
            uploadAck = ack
            resumeUploadWaiters()
        }
        resolveVerdicts()
    }

    private func serveConnection() async throws {
        session?.setConnectionState(.connecting)
        let user = sync.user
        let token: String
        do {
            token = try await user.accessToken(forceRefresh: forceTokenRefresh)
        } catch let error as AppError where error.httpStatusCode == 401 {
            // The server refused the refresh token: the user is logged out (which stops this session). The original
            // reports it to the error handler as `.clientUserError` (its AuthError).
            report(SyncError(.clientUserError, "Unable to refresh the user access token: \(error.message)", isFatal: true))
            throw error
        } catch {
            // The refresh before a connection could not reach the server: as a failed connection attempt.
            reportConnectionFailure("Could not refresh the access token to connect: \(error)", isTimeout: false)
            throw error
        }
        forceTokenRefresh = false
        let url = SyncURL.realmSync(baseURL: user.app.baseURL, appId: user.app.appId)
        let conn: SyncConnection
        do {
            conn = try await SyncConnection.connect(url: url, accessToken: token, timeout: .milliseconds(Int(timeouts.connectTimeout)))
        } catch {
            // A failed attempt may have failed on its token; a stopped one did not.
            if !(error is CancellationError) { forceTokenRefresh = true }
            throw error
        }
        // However this returns or throws (cancelled, a failed read of the file, the server's close), the socket
        // and its pings end with it: the server must not keep a session bound to a connection nobody reads.
        defer {
            conn.close()
            pingTask?.cancel()
        }
        try Task.checkCancellation()
        connectionNumber = SyncAgent.counter.nextConnection()
        connection = conn
        session?.setConnectionState(.connected)
        keepalive = SyncKeepalive(pingPeriod: Int(timeouts.pingKeepalivePeriod),
                                  pongTimeout: Int(timeouts.pongKeepaliveTimeout), connectedAt: Date())
        startPings(conn)

        // The recorded rejections are read here, once per connection: the snapshot is read on every upload pump.
        // Held downloads stored by an earlier connection (or process) are dropped: the server sends them again.
        let (snapshot, recorded) = try await database.perform {
            try $0.syncDropHeldDownloads()
            return (try $0.syncSnapshot(), try SyncStore.rejections($0.connection))
        }
        tracker.load(snapshot.subscriptionStates)
        tracker.refresh(from: snapshot.subscriptionStates)
        for (version, updates) in recorded where rejections[version] == nil {
            rejections[version] = updates.map(Self.compensatingWriteInfo)
        }
        fileIdent = snapshot.fileIdent
        if snapshot.isClientResetUnderWay {
            // Begun on an earlier connection, or before a restart. A flexible-sync file waits for the bootstrap of
            // the subscription set it sends again; any other collects the downloads until it has caught up.
            var progress = reset ?? ResetProgress(before: nil)
            progress.awaitedVersions = sync.enableFlexibleSync ? Set(snapshot.pendingSubscriptions.map(\.version)) : []
            progress.awaitsBootstrap = !progress.awaitedVersions.isEmpty
            reset = progress
        } else {
            reset = nil
        }
        uploadAck = max(uploadAck, snapshot.uploadAck)
        downloadedServerVersion = snapshot.cursor.serverVersion
        downloadBase = snapshot.cursor.serverVersion
        announcedLatest = snapshot.cursor.serverVersion
        session?.resetDownloadProgress()
        lastSentClientVersion = snapshot.uploadAck
        lastSentQueryVersion = snapshot.activeSubscriptions?.version ?? 0
        held = HeldDownloads()
        isBootstrapping = false
        markRequests = [:]
        pendingCompensations = []
        lastDownload = nil
        manager.log(.debug, "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: Sending: BIND(\(path), file ident "
            + "\(snapshot.fileIdent.map { "\($0)" } ?? "none"), cursor \(snapshot.cursor.serverVersion), upload ack \(snapshot.uploadAck))")
        conn.send(.bind(
            session: 1, mode: sync.enableFlexibleSync ? .flexible : .partition, partition: sync.partitionProtocolValue,
            fileIdent: snapshot.fileIdent, salt: snapshot.salt, cursor: snapshot.cursor,
            subscriptions: sync.enableFlexibleSync ? (snapshot.activeSubscriptions ?? SubscriptionQuery(version: 0, queries: [:])) : nil))
        if fileIdent != nil { try await afterIdent() }

        for await event in conn.events {
            try Task.checkCancellation()
            // Once this side closed the connection (a bad message, an error, no pong), nothing more it buffered is
            // handled: a download after one that could not be read would move the cursor past it.
            if conn.isClosed { return }
            switch event {
            case .message(let text):
                conn.budget.release(text.utf8.count)
                // A bootstrap batch that will wait in the file is not parsed now: it is when it is applied.
                if let (envelope, hasChangesets) = storedBatchEnvelope(text) {
                    try await handle(envelope, conn, text: text, unparsed: hasChangesets)
                    continue
                }
                let message: ServerMessage
                do {
                    message = try ServerMessage.decode(text)
                } catch {
                    manager.log(.error, "Sync: Connection[\(connectionNumber)]: bad message from the server: \(error)")
                    conn.close()
                    return
                }
                try await handle(message, conn, text: text)
            case .localChange:
                try await pump(conn)
            case .pingTick:
                switch keepalive.tick(at: Date(), readerWaiting: conn.budget.waiting > 0) {
                case .sendPing(let timestamp):
                    conn.send(.ping(timestamp: timestamp))
                case .close:
                    manager.log(.info, "Sync: Connection[\(connectionNumber)]: no pong from the server; reconnecting")
                    conn.close()
                case .none:
                    break
                }
            case .closed(let reason):
                manager.log(.info, "Sync: Connection[\(connectionNumber)]: closed by the server: \(reason ?? "no reason given")")
                return
            }
        }
    }

    private func startPings(_ conn: SyncConnection) {
        pingTask?.cancel()
        // The tick decides whether a ping is due or overdue (``SyncKeepalive``).
        let tick = keepalive.tickInterval
        pingTask = Task {
            var sinceLook: Duration = .zero
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                if Task.isCancelled { break }
                sinceLook += tick
                if sinceLook >= .seconds(1) {
                    // Every second: look for transactions committed by other processes (they cannot nudge this one).
                    sinceLook = .zero
                    conn.inject(.localChange)
                }
                conn.inject(.pingTick)
            }
        }
    }

    /// Once the file has its identity: ask for the download marks waiters need, and upload.
    private func afterIdent() async throws {
        guard let conn = connection else { return }
        if !downloadWaiters.isEmpty && reset == nil { sendMark(.download) }
        try await pump(conn)
    }

    private func sendMark(_ purpose: MarkPurpose) {
        guard let conn = connection else { return }
        let id = nextRequestId
        nextRequestId += 1
        markRequests[id] = purpose
        conn.send(.mark(session: 1, requestId: id))
    }

    // MARK: Messages

    /// A download message's envelope (its changesets unread) and whether it has changesets, when it is a bootstrap
    /// batch (`more`) that will be held in the file (``HeldDownloads``) — nil for any other message, which is parsed
    /// whole.
    private func storedBatchEnvelope(_ text: String) -> (ServerMessage, Bool)? {
        guard !held.keepsInMemory(text.utf8.count, limit: sync.heldDownloadMemoryLimit),
            let (envelope, hasChangesets) = DownloadMessageReader.envelope(text),
            case .download(_, _, _, _, _, .moreToCome, _) = envelope
        else { return nil }
        return (envelope, hasChangesets)
    }

    /// Handles one message from the server; `text` is the message as it came (a held download may be stored as is).
    /// `unparsed`: a download whose changesets were not read (``storedBatchEnvelope(_:)``); its text holds them.
    private func handle(_ message: ServerMessage, _ conn: SyncConnection, text: String, unparsed: Bool = false) async throws {
        if stream != nil, !Self.continuesStream(message) {
            // Anything but the bootstrap's next batch may need a write, and the stream's transaction is open: the
            // bootstrap is rolled back, the message handled as usual, and the bootstrap comes again on the next
            // connection (the rest of this one would be applied without its first batches).
            await cancelStream()
            try await handleMessage(message, conn, text: text, unparsed: unparsed)
            throw BootstrapStreamInterrupted(reason: "another message came before its last batch")
        }
        try await handleMessage(message, conn, text: text, unparsed: unparsed)
    }

    private func handleMessage(_ message: ServerMessage, _ conn: SyncConnection, text: String, unparsed: Bool) async throws {
        switch message {
        case .ident(_, let ident, let salt):
            failedAttempts = 0
            try await database.perform { try $0.syncSetIdent(fileIdent: ident, salt: salt) }
            fileIdent = ident
            try await afterIdent()
        case .download(_, let cursor, let latest, let ack, let queryVersion, let batch, let changesets):
            failedAttempts = 0
            lastDownload = (cursor, ack)
            announcedLatest = max(announcedLatest, latest)
            switch batch {
            case .moreToCome:
                // A bootstrap's batch, or a part of a changeset too large for one message (its last part comes in
                // a steady-state download): kept until the message that completes it, and applied with it.
                if !isBootstrapping {
                    switch tracker.state(queryVersion) {
                    case nil, .pending?: tracker.set(queryVersion, .bootstrapping)
                    default: break  // parts of a large changeset for a set bootstrapped already
                    }
                }
                if !isBootstrapping, reset == nil, held.isEmpty, pendingCompensations.isEmpty,
                   tracker.state(queryVersion) == .bootstrapping, sync.enableFlexibleSync,
                   !RealmRegistry.shared.hasUsableAppInstance(path: path) {
                    let database = database
                    stream = try await database.perform {
                        try $0.syncBeginBootstrapStream(giveWay: { database.cancelBootstrapStream($0) })
                    }
                    if stream != nil {
                        manager.log(.debug, "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: applying the "
                            + "bootstrap of query version \(queryVersion) as it arrives")
                    }
                }
                isBootstrapping = true
                if let stream {
                    // Unread only when it is larger than the held-download limit (the first batch).
                    let batch: [DownloadChangeset]
                    do { batch = unparsed ? try Self.changesets(text) : changesets } catch {
                        throw HeldDownloadUnreadable(sequence: 0, reason: "\(error)")
                    }
                    try await streamBatch(stream, batch)
                } else {
                    try await hold(changesets, text: text, unparsed: unparsed)
                }
            case .lastInBatch:
                if let current = stream {
                    if let previous = streamApply { try await previous.value }
                    streamApply = nil
                    let report = try await database.perform {
                        try $0.syncFinishBootstrapStream(current, last: changesets, cursor: cursor, uploadAck: ack,
                                                         queryVersion: queryVersion)
                    }
                    stream = nil
                    isBootstrapping = false
                    afterApply(report, HeldDownloads(), changesets, cursor: cursor, ack: ack,
                               streamed: current.instructions)
                    tracker.set(queryVersion, .awaitingMark)
                    sendMark(.query(queryVersion))
                    try await pump(conn)
                    break
                }
                if let progress = reset, !progress.awaitsBootstrap {
                    // A partition-based reset holds every download until it has caught up (not sent by Outpost's
                    // server, which bootstraps only subscription sets): this one is held too.
                    try await hold(changesets, text: text)
                    break
                }
                let taken = takeHeld()
                isBootstrapping = false
                let finishesReset = reset?.awaitsBootstrap == true
                try await apply(taken, then: changesets, cursor: cursor, ack: ack, bootstrapped: queryVersion,
                                finishesReset: finishesReset)
                if finishesReset { finishReset() }
                tracker.set(queryVersion, .awaitingMark)
                sendMark(.query(queryVersion))
                try await pump(conn)
            case .steadyState:
                isBootstrapping = false
                if let progress = reset, !progress.awaitsBootstrap {
                    // A client reset without a bootstrap: the downloads since version 0 are the server's data, held
                    // and applied together once they reach the latest version.
                    if cursor.serverVersion >= latest {
                        try await apply(takeHeld(), then: changesets, cursor: cursor, ack: ack, bootstrapped: nil,
                                        finishesReset: true)
                        finishReset()
                    } else {
                        try await hold(changesets, text: text)
                    }
                } else {
                    try await apply(takeHeld(), then: changesets, cursor: cursor, ack: ack, bootstrapped: nil)
                }
                try await pump(conn)
            }
        case .mark(_, let requestId, _):
            switch markRequests.removeValue(forKey: requestId) {
            case .query(let version)?:
                try await database.perform { try $0.syncSetSubscriptionState(version, .complete) }
                tracker.set(version, .complete)
            case .download?:
                // Only the callers that were waiting when this mark was sent: a later one needs a later mark.
                let ready = downloadWaiters.filter { $0.value.firstMark <= requestId }
                for id in ready.keys { downloadWaiters.removeValue(forKey: id) }
                for w in ready.values { w.continuation.resume() }
            case nil: break
            }
        case .queryError(_, let version, let code, let text):
            manager.log(.info, "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: Received: QUERY_ERROR \"\(text)\" (error_code=\(code.rawValue), query_version=\(version))")
            try await database.perform { try $0.syncSetSubscriptionState(version, .error(text)) }
            tracker.set(version, .error(text))
            try await resetSetRefused(version)
        case .error(let info):
            try await handleError(info, conn)
        case .pong:
            keepalive.pongReceived()
        case .unbound:
            conn.close()
        case .log(_, let level, let text):
            manager.log(SyncLogLevel(serverLevel: level), "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: Server: \(text)")
        }
    }

    /// Queues one batch of the bootstrap stream: the batch before it must be applied first, so the next one is
    /// decoded while this one is applied, and at most two are in memory.
    private func streamBatch(_ stream: BootstrapStream, _ changesets: [DownloadChangeset]) async throws {
        if let previous = streamApply {
            try await previous.value
            streamApplied += streamQueued
            manager.log(.trace, "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: \(streamApplied) "
                + "instructions of the bootstrap applied so far (not committed)")
        } else {
            streamApplied = 0
        }
        streamQueued = changesets.reduce(0) { $0 + $1.instructions.count }
        let database = database
        streamApply = Task { try await database.perform { try $0.syncStreamBatch(stream, changesets) } }
    }

    /// Rolls back the bootstrap stream, if one is open.
    private func cancelStream() async {
        guard stream != nil else { return }
        stream = nil
        if let applying = streamApply { _ = try? await applying.value }
        streamApply = nil
        isBootstrapping = false
        _ = try? await database.perform { $0.syncCancelBootstrapStream() }
    }

    /// Whether a message may arrive while a bootstrap stream is open: its next batch, or one that writes nothing.
    private static func continuesStream(_ message: ServerMessage) -> Bool {
        switch message {
        case .download(_, _, _, _, _, .moreToCome, _), .download(_, _, _, _, _, .lastInBatch, _), .pong, .log: true
        default: false
        }
    }

    /// The changesets of a download message whose envelope alone was read (``storedBatchEnvelope(_:)``).
    private static func changesets(_ text: String) throws -> [DownloadChangeset] {
        guard case .download(_, _, _, _, _, _, let changesets) = try ServerMessage.decode(text) else { return [] }
        return changesets
    }

    /// Holds a download message back until the one that completes it: parsed in memory up to the limit, stored in the
    /// file beyond it (``HeldDownloads``).
    /// `unparsed`: the message's changesets were not read (they are in `text` only).
    private func hold(_ changesets: [DownloadChangeset], text: String, unparsed: Bool = false) async throws {
        let bytes = text.utf8.count
        if !unparsed, held.keepsInMemory(bytes, limit: sync.heldDownloadMemoryLimit) {
            held.keep(changesets, bytes: bytes)
        } else {
            try await database.perform { try $0.syncHoldDownload(text) }
            held.noteStored(instructions: unparsed ? SyncProtocolLimits.maxInstructionsPerDownload
                                : changesets.reduce(0) { $0 + $1.instructions.count })
        }
    }

    /// The held downloads, which the session no longer holds.
    private func takeHeld() -> HeldDownloads {
        defer { held = HeldDownloads() }
        return held
    }

    private func apply(_ changesets: [DownloadChangeset], cursor: DownloadCursor, ack: Int64, bootstrapped: Int64?,
                       finishesReset: Bool = false) async throws {
        try await apply(HeldDownloads(), then: changesets, cursor: cursor, ack: ack, bootstrapped: bootstrapped,
                        finishesReset: finishesReset)
    }

    /// Applies the held downloads and then `changesets` in one transaction, with the acknowledgement and the cursor.
    private func apply(_ held: HeldDownloads, then changesets: [DownloadChangeset], cursor: DownloadCursor, ack: Int64,
                       bootstrapped: Int64?, finishesReset: Bool = false) async throws {
        // The rejections whose revert this download applies are recorded with it: `verdict(forTransaction:)`
        // answers from the file after a restart (it answered `.accepted` before).
        let rejected = pendingCompensations.compactMap { info -> (Int64, [RejectedUpdate])? in
            guard let version = info.rejectedClientVersion, (info.compensatingWriteServerVersion ?? 0) <= cursor.serverVersion
            else { return nil }
            return (version, info.rejectedUpdates ?? [])
        }
        let report = try await database.perform {
            try $0.syncApplyDownload(held, then: changesets, cursor: cursor, uploadAck: ack,
                                     bootstrappedQueryVersion: bootstrapped, rejections: rejected, finishesReset: finishesReset)
        }
        afterApply(report, held, changesets, cursor: cursor, ack: ack)
    }

    /// After a download was applied: its log lines, the session's progress, and the waiters it answers.
    /// `streamed`: the instructions a bootstrap stream applied, its last batch included.
    private func afterApply(_ report: RealmInstance.SyncDownloadReport, _ held: HeldDownloads,
                            _ changesets: [DownloadChangeset], cursor: DownloadCursor, ack: Int64, streamed: Int? = nil) {
        if held.stored > 0 || streamed != nil { unreadableHeldDownloads = 0 }
        let prefix = "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]:"
        for p in report.problems { manager.log(.warn, "\(prefix) could not apply a downloaded change to \(p)") }
        let heldNote = streamed.map { " after \($0) instructions applied as they arrived" }
            ?? (held.isEmpty ? "" : " after \(held.instructionCount) held instructions (\(held.stored) messages stored)")
        manager.log(.debug, "\(prefix) Received: DOWNLOAD(server versions \(changesets.first.map { "\($0.serverVersion)" } ?? "-")"
            + "…\(changesets.last.map { "\($0.serverVersion)" } ?? "-"), cursor \(cursor.serverVersion), upload ack \(ack), "
            + "\(changesets.count) changesets\(heldNote), own client versions \(changesets.filter { $0.originFileIdent == fileIdent }.map(\.originClientVersion)))")
        for line in report.kept { manager.log(.trace, "\(prefix) \(line)") }
        downloadedServerVersion = max(downloadedServerVersion, cursor.serverVersion)
        uploadAck = max(uploadAck, ack)
        lastSentClientVersion = max(lastSentClientVersion, ack)
        session?.setDownloadProgress(transferred: Int(max(0, cursor.serverVersion - downloadBase)),
                                     transferrable: Int(max(0, max(announcedLatest, cursor.serverVersion) - downloadBase)))
        resumeUploadWaiters()
        reportCompensations()
        resolveVerdicts()
    }

    /// Resumes the `wait(for: .upload)` callers whose transactions `uploadAck` covers.
    private func resumeUploadWaiters() {
        let ready = uploadWaiters.filter { $0.value.target <= uploadAck }
        for id in ready.keys { uploadWaiters.removeValue(forKey: id) }
        for w in ready.values { w.continuation.resume() }
    }

    /// The server's verdict on one committed transaction (by client version): known once the server acknowledged it
    /// and any compensating write for it was applied and reported.
    func verdict(forTransaction version: Int64) async throws -> SyncSession.WriteVerdict {
        if isInvalid { throw SyncError(.clientSessionError, "The sync session is invalid.") }
        if let v = decidedVerdict(version) { return v }
        return try await withCheckedThrowingContinuation { continuation in
            verdictWaiters.append((version, continuation))
            connection?.inject(.localChange)
        }
    }

    private func decidedVerdict(_ version: Int64) -> SyncSession.WriteVerdict? {
        guard uploadAck >= version, !pendingCompensations.contains(where: { $0.rejectedClientVersion == version }) else {
            return nil
        }
        if let infos = rejections[version] { return .rejected(infos) }
        return .accepted
    }

    private func resolveVerdicts() {
        var still: [(version: Int64, continuation: CheckedContinuation<SyncSession.WriteVerdict, Error>)] = []
        for w in verdictWaiters {
            if let v = decidedVerdict(w.version) { w.continuation.resume(returning: v) } else { still.append(w) }
        }
        verdictWaiters = still
    }

    /// Reports compensating writes whose revert has been applied locally (never before it).
    private func reportCompensations() {
        let due = pendingCompensations.filter { ($0.compensatingWriteServerVersion ?? 0) <= downloadedServerVersion }
        pendingCompensations.removeAll { ($0.compensatingWriteServerVersion ?? 0) <= downloadedServerVersion }
        for info in due {
            manager.log(.info, "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: Reporting compensating write "
                + "for client version \(info.rejectedClientVersion ?? 0) in server version "
                + "\(info.compensatingWriteServerVersion ?? 0): \(info.message)")
            let writes = (info.rejectedUpdates ?? []).map(Self.compensatingWriteInfo)
            if let v = info.rejectedClientVersion {
                rejections[v, default: []] += writes
                if rejections.count > 10_000, let oldest = rejections.keys.min() { rejections[oldest] = nil }
            }
            report(SyncError(.writeRejected, info.message, compensatingWriteInfo: writes,
                             serverLogURL: info.logURL.flatMap(URL.init(string:)), protocolErrorCode: 231))
        }
    }

    static func compensatingWriteInfo(_ update: RejectedUpdate) -> CompensatingWriteInfo {
        CompensatingWriteInfo(objectType: update.table, primaryKey: SyncValues.anyRealmValue(update.primaryKey),
                              reason: update.reason)
    }

    private func handleError(_ info: SyncErrorInfo, _ conn: SyncConnection) async throws {
        let code = info.code.rawValue
        manager.log(.info, "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: Received: ERROR \"\(info.message)\" "
            + "(error_code=\(code), try_again=\(info.tryAgain), error_action=\(info.action.rawValue))")
        if code == 231 {
            pendingCompensations.append(info)
            reportCompensations()
            return
        }
        if ClientResetPlan.isRequested(by: info) {
            try await clientReset(info, conn)
            return
        }
        if info.tryAgain && !info.shouldClientReset {
            conn.close()
            return
        }
        isInvalid = true
        session?.setState(.invalid)
        let swiftCode = SyncError.Code(protocolCode: code, clientReset: info.shouldClientReset)
        // A file the user may not read: the token deletes it (`deleteRealmUserInfo()`), as the original offers.
        let token = swiftCode == .permissionDeniedError ? SyncError.ActionToken(originalPath: path, backupPath: nil) : nil
        let error = SyncError(swiftCode, info.message, serverLogURL: info.logURL.flatMap(URL.init(string:)),
                              protocolErrorCode: code, isFatal: true, actionToken: token)
        report(error)
        failWaiters(error)
        tracker.failAll(info.message)
        conn.close()
    }

    // MARK: Client reset

    /// A client reset under way (its plan acted at its start, `syncBeginClientReset`): the frozen Realm from before it
    /// (for `afterReset`), and whether the file waits for a bootstrap (flexible sync) or — holding the downloads
    /// (``HeldDownloads``) — for the session to catch up (partition-based sync).
    private struct ResetProgress {
        var before: UncheckedSendable<Realm>?
        var awaitsBootstrap = false
        /// The subscription sets sent again whose bootstrap the reset waits for (flexible sync).
        var awaitedVersions: Set<Int64> = []
    }

    /// The server asked for a client reset (docs/sync-client.md, "Client reset"). Automatic modes: `beforeReset`
    /// gets a frozen Realm of the data as it is; the file then forgets its server identity in one transaction (and
    /// with `.discard`, its upload queue), and the session binds again at once as a new file. The server's data
    /// replaces the local data when it has arrived (``finishReset()``); with `.recover`, the queued transactions are
    /// uploaded again on top. `.manual` reports `.clientResetError` with a backup path and stops.
    private func clientReset(_ info: SyncErrorInfo, _ conn: SyncConnection) async throws {
        let plan = ClientResetPlan(mode: sync.clientResetMode, info: info)
        let prefix = "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]:"
        guard plan != .manual else {
            manualClientReset(info, conn)
            return
        }
        manager.log(.info, "\(prefix) client reset, \(plan == .recover ? "recovering" : "discarding") unsynced changes: \(info.message)")
        let callbacks = sync.clientResetMode.callbacks
        // A reset asked for again while one is under way (the new file refused too) keeps the first one's Realm from
        // before, and `beforeReset` is not called twice.
        var before = reset?.before
        if reset == nil, callbacks.before != nil || callbacks.after != nil {
            before = await onCallbackQueue { [callbackConfiguration, manager] in
                (try? Realm(configuration: callbackConfiguration, queue: manager.callbackQueue)).map { UncheckedSendable($0.freeze()) }
            }
            if let beforeReset = callbacks.before, let before {
                let call = UncheckedSendable { beforeReset(before.value) }
                await onCallbackQueue { call.value() }
            }
        }
        // Stopped (suspended, logged out) while the callback ran: the reset begins on the next connection instead.
        try Task.checkCancellation()
        try await database.perform { try $0.syncBeginClientReset(plan) }
        reset = ResetProgress(before: before)
        if plan == .discard {
            uploadAck = max(uploadAck, try await database.perform { try SyncStore.integer($0.connection, "uploadAck") ?? 0 })
            resumeUploadWaiters()
        }
        skipBackoff = true
        conn.close()
    }

    /// A flexible-sync reset waits for the bootstrap of the sets it sent again; when the server refuses the last of
    /// them, none will come: the file's view is empty, and the reset finishes with what the server sent so far
    /// (nothing of the refused sets), so that it does not wait for ever.
    private func resetSetRefused(_ version: Int64) async throws {
        guard var progress = reset, progress.awaitsBootstrap, progress.awaitedVersions.remove(version) != nil else { return }
        reset = progress
        guard progress.awaitedVersions.isEmpty, let last = lastDownload else { return }
        try await apply([], cursor: last.cursor, ack: last.ack, bootstrapped: nil, finishesReset: true)
        finishReset()
    }

    /// The reset's download has been applied: `afterReset` gets the frozen Realm from before and a live one, and
    /// the download waiters get their mark.
    private func finishReset() {
        guard let progress = reset else { return }
        reset = nil
        manager.log(.info, "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: client reset complete")
        if !downloadWaiters.isEmpty { sendMark(.download) }
        guard let afterReset = sync.clientResetMode.callbacks.after else { return }
        let call = UncheckedSendable { [callbackConfiguration, manager] in
            guard let after = try? Realm(configuration: callbackConfiguration, queue: manager.callbackQueue) else { return }
            afterReset(progress.before?.value ?? after.freeze(), after)
        }
        manager.callbackQueue.async { call.value() }
    }

    /// `.manual`: reports `.clientResetError` (to the mode's handler, else the manager's) with the path the file
    /// will be moved to, and stops the session for good.
    private func manualClientReset(_ info: SyncErrorInfo, _ conn: SyncConnection) {
        isInvalid = true
        session?.setState(.invalid)
        let token = SyncError.ActionToken(originalPath: path, backupPath: ClientResetBackup.path(for: path))
        let error = SyncError(.clientResetError, info.message, serverLogURL: info.logURL.flatMap(URL.init(string:)),
                              protocolErrorCode: info.code.rawValue, isFatal: true, actionToken: token)
        if let handler = sync.clientResetMode.manualErrorHandler {
            let call = UncheckedSendable { [session] in handler(error, session) }
            manager.callbackQueue.async { call.value() }
        } else {
            report(error)
        }
        failWaiters(error)
        tracker.failAll(info.message)
        conn.close()
    }

    /// Runs `body` on the manager's callback queue and returns its result.
    private func onCallbackQueue<T>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let result = UncheckedSendable(continuation)
            manager.callbackQueue.async { result.value.resume(returning: UncheckedSendable(body()).value) }
        }
    }

    /// The session could not read or write its file (a full disk, a file made read-only, a failed write): logged as
    /// an error, reported to the error handler as `.clientInternalError` the first time in a row (not at every
    /// retry), and the session connects again after a backoff that grows with each such failure. A failure ten
    /// minutes or more after the one before starts a new row (the backoff tops out at five minutes, so a row that
    /// goes on stays one). Nothing is lost: the transaction rolled back, and the server sends the download again.
    private func fileFailure(_ description: String) {
        manager.log(.error, "Sync: Session[\(sessionNumber)]: could not read or write \(path): \(description)")
        let now = Date()
        if let last = lastFileFailure, now.timeIntervalSince(last) >= 600 { fileFailures = 0 }
        lastFileFailure = now
        fileFailures += 1
        failedAttempts = max(failedAttempts, fileFailures)
        if fileFailures == 1 {
            report(SyncError(.clientInternalError, "The sync session could not read or write its file: \(description)"))
        }
    }

    private func report(_ error: SyncError) {
        guard let handler = manager.errorHandler else {
            manager.log(.error, "Sync: Session[\(sessionNumber)]: \(error.message) (no errorHandler is set)")
            return
        }
        // On the manager's serial queue: a handler that blocks (or opens the Realm) cannot stall the session, and
        // reports keep their order.
        let call = UncheckedSendable { [session] in handler(error, session) }
        manager.callbackQueue.async { call.value() }
    }

    // MARK: Uploads

    /// Sends queued transactions and subscription sets in commit order. Nothing goes while a bootstrap arrives or
    /// before the file has its identity.
    private func pump(_ conn: SyncConnection) async throws {
        guard fileIdent != nil, !isBootstrapping, connection === conn else { return }
        let after = lastSentClientVersion
        let lastQuery = lastSentQueryVersion
        let (queued, snapshot) = try await database.perform { instance in
            (try SyncStore.queued(instance.connection, after: after, limit: 1000), try instance.syncSnapshot())
        }
        var batch: [SyncStore.QueuedUpload] = []
        var batchBytes = 0
        var sentQuery = lastQuery
        func flush() {
            guard !batch.isEmpty else { return }
            manager.log(.debug, "Sync: Connection[\(connectionNumber)]: Session[\(sessionNumber)]: Sending: UPLOAD(client versions "
                + "\(batch[0].clientVersion)…\(batch[batch.count - 1].clientVersion))")
            conn.send(text: ClientMessage.uploadText(session: 1, changesetTexts: batch.map(\.text)))
            batch.removeAll()
            batchBytes = 0
        }
        let pendingSets = sync.enableFlexibleSync ? snapshot.pendingSubscriptions.filter { $0.version > lastQuery } : []
        for item in queued {
            for set in pendingSets where set.version > sentQuery && set.version <= item.queryVersion {
                flush()
                conn.send(.query(session: 1, subscriptions: set))
                sentQuery = set.version
            }
            // One message stays within the server's limit: many transactions queued offline take several.
            let bytes = item.text.utf8.count + 1
            if batchBytes + bytes > SyncStore.maxChangesetBytes { flush() }
            batch.append(item)
            batchBytes += bytes
            lastSentClientVersion = item.clientVersion
        }
        flush()
        for set in pendingSets where set.version > sentQuery {
            conn.send(.query(session: 1, subscriptions: set))
            sentQuery = set.version
        }
        lastSentQueryVersion = sentQuery
        if queued.count == 1000 { conn.inject(.localChange) }
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

/// Reconnect delays (1 s doubling to 5 min, up to 25 % jitter). Keepalive timing and the connect timeout come from
/// the app's `SyncTimeoutOptions`.
enum SyncBackoff {
    static func delay(attempt: Int) -> Duration {
        let base = min(300.0, pow(2.0, Double(min(attempt, 10))))
        let jitter = Double.random(in: 0...0.25) * base
        return .milliseconds(Int((base + jitter) * 1000))
    }
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

extension SyncError.Code {
    /// The Swift code for a protocol error code (reference/sync.md §1.4).
    init(protocolCode code: Int, clientReset: Bool) {
        switch code {
        case 206: self = .permissionDeniedError
        case 231: self = .writeRejected
        case 226: self = .invalidFlexibleSyncSubscriptions
        default: self = clientReset || SyncErrorCode(rawValue: code).requiresClientReset ? .clientResetError : .clientSessionError
        }
    }
}

/// Carries a value the compiler cannot prove `Sendable` (a user's callback) to the queue that calls it.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
