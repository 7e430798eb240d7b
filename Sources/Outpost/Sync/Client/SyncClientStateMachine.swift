import Foundation
import OutpostCore

/// The sync client's protocol logic as a value: fed what happened (a connection opened, a server message, a local
/// change, a tick, a waiter, the end of a connection), it updates its state and answers the actions to carry out
/// (send, apply a download, hold one, store a state, report an error, close, resume waiters, wait before connecting).
/// It does no I/O and reads no clock: ``SyncAgent`` executes the actions and feeds back what they produced (the
/// queue read for an upload, a download applied), and transcript tests drive it alone (SyncClientStateMachineTests).
///
/// Actions are carried out in order; an action that fails (a database error) ends the connection, and the rest of
/// the list is dropped. docs/sync-client.md describes the protocol it speaks.
struct SyncClientStateMachine {
    /// What the machine knows of its file and app, fixed for the session.
    struct Settings {
        var path: String
        var flexibleSync: Bool
        /// The partition value bound (partition-based sync).
        var partition: Value?
        var heldDownloadMemoryLimit: Int
        var clientResetMode: ClientResetMode
        /// For log lines (`Session[n]`).
        var sessionNumber: Int
    }

    enum MarkPurpose: Equatable { case query(Int64), download }

    /// A download to apply in one transaction, and what follows once it is applied.
    struct Application {
        enum Then: Equatable {
            /// A steady-state download: upload what is queued.
            case upload
            /// The last batch of query version `queryVersion`'s bootstrap: mark the set, ask for its mark, upload.
            case bootstrapped(queryVersion: Int64, finishesReset: Bool)
            /// The download that completes a client reset (no bootstrap): finish it, upload.
            case finishReset(upload: Bool)
        }

        var held: HeldDownloads
        var changesets: [DownloadChangeset]
        var cursor: DownloadCursor
        var ack: Int64
        var bootstrapped: Int64?
        var finishesReset: Bool
        /// The refused writes whose revert this download applies, recorded with it.
        var rejections: [(Int64, [RejectedUpdate])]
        var then: Then
    }

    /// The first bootstrap batch, waiting for the bootstrap stream to open (``streamOpened(_:)``).
    struct PendingBatch {
        var queryVersion: Int64
        var changesets: [DownloadChangeset]
        var text: String
        var unparsed: Bool
    }

    /// The upload the machine asked to read: the client versions and subscription sets after these were sent on
    /// connection `generation`.
    struct UploadRead: Equatable {
        var generation: Int
        var after: Int64
        var lastQuery: Int64
    }

    enum Action {
        case send(ClientMessage)
        /// An UPLOAD of stored changeset texts (sent as they are).
        case sendUpload([String])
        case log(SyncLogLevel, String)
        case close
        /// Store the server's identity for the file.
        case storeIdent(fileIdent: Int64, salt: Int64)
        /// Store a held download message in the file (``HeldDownloads``).
        case holdInFile(String)
        /// Open a bootstrap stream; then ``streamOpened(_:_:)``.
        case openBootstrapStream(PendingBatch)
        /// Queue one batch of the open stream; `unparsedText`: its changesets are still to be read from it.
        case streamBatch([DownloadChangeset], unparsedText: String?)
        /// Commit the open stream with its last batch; then ``streamFinished(_:instructions:)``.
        case finishStream(last: [DownloadChangeset], cursor: DownloadCursor, ack: Int64, queryVersion: Int64)
        /// Roll the open stream back.
        case cancelStream
        /// Apply a download; then ``applied(_:_:)``.
        case apply(Application)
        /// Read the queued transactions and subscription sets to upload; then ``uploadsRead(_:_:pending:)``.
        case readUploads(UploadRead)
        /// Look at the queue again from the connection's loop (a full batch went, a waiter needs an upload): reads of
        /// the queue never overlap.
        case nudgeUpload
        /// Set a subscription set's state in the process's tracker only.
        case trackSubscription(Int64, SubscriptionSetState)
        /// Store a subscription set's state in the file, then in the tracker.
        case storeSubscriptionState(Int64, SubscriptionSetState)
        /// Every subscription set waiting fails with this message.
        case failSubscriptions(String)
        /// Begin a client reset of this plan (its callbacks, the file); then ``clientResetBegun(_:storedUploadAck:)``.
        case beginClientReset(ClientResetPlan)
        /// The reset's download is applied: call `afterReset`.
        case finishClientReset
        case report(SyncError)
        /// `.manual` reset with the mode's own handler.
        case reportToManualHandler(SyncError)
        /// The session is invalid for good.
        case invalidate
        case reportDownloadProgress(transferred: Int, transferrable: Int)
        case resumeDownloadWaiters([UUID])
        case resumeUploadWaiters([UUID])
        case answerVerdicts([(UUID, SyncSession.WriteVerdict)])
        case failWaiters(SyncError)
        /// The connection is over for this reason (it is closed, and the loop connects again).
        case endConnection(Error)
    }

    let settings: Settings

    // The state below is read by the agent and the tests, and changed by the machine's own methods only (they span
    // several files, so Swift's `private(set)` cannot say so).

    // Across connections.
    var isInvalid = false
    var uploadAck: Int64 = 0
    var downloadedServerVersion: Int64 = 0
    /// Attempts in a row that did not get as far as the server accepting the session (an IDENT or a DOWNLOAD).
    var failedAttempts = 0
    /// The next connection starts at once (a client reset or a bootstrap giving way closed the last one).
    var skipBackoff = false
    /// A client reset under way: whether it waits for a bootstrap (flexible sync) and of which sets.
    var reset: ResetProgress?
    /// Rejected writes reported so far, by client version, for `verdict(forTransaction:)`.
    var rejections: [Int64: [CompensatingWriteInfo]] = [:]
    var unreadableHeldDownloads = 0
    var fileFailures = 0
    var lastFileFailure: Date?
    var nextRequestId: Int64 = 1
    var downloadWaiters: [UUID: Int64] = [:]
    var uploadWaiters: [UUID: Int64] = [:]
    var verdictWaiters: [(id: UUID, version: Int64)] = []

    // Per connection.
    /// Counts connections: an answer to an action of an earlier one is ignored.
    var generation = 0
    var isConnected = false
    /// BIND has been sent on this connection: only then may session messages (MARK, UPLOAD, QUERY) go. Between the
    /// socket opening and the BIND (the file's snapshot is being read) they would name a session the server does not
    /// have yet ("Bad session identifier 1").
    var isBound = false
    var connectionNumber = 0
    var fileIdent: Int64?
    var lastSentClientVersion: Int64 = 0
    var lastSentQueryVersion: Int64 = 0
    var held = HeldDownloads()
    var isBootstrapping = false
    var isStreaming = false
    var markRequests: [Int64: MarkPurpose] = [:]
    var pendingCompensations: [SyncErrorInfo] = []
    var lastDownload: (cursor: DownloadCursor, ack: Int64)?
    var downloadBase: Int64 = 0
    var announcedLatest: Int64 = 0
    var keepalive = SyncKeepalive(pingPeriod: 60_000, pongTimeout: 120_000, connectedAt: Date(timeIntervalSince1970: 0))

    struct ResetProgress: Equatable {
        var awaitsBootstrap = false
        var awaitedVersions: Set<Int64> = []
    }

    init(settings: Settings) {
        self.settings = settings
    }

    var prefix: String { "Sync: Connection[\(connectionNumber)]: Session[\(settings.sessionNumber)]:" }

    // MARK: Connections

    /// The socket is open (connection `number` of the process); the file's snapshot is read next.
    mutating func socketOpened(number: Int, at now: Date, pingPeriod: Int, pongTimeout: Int) {
        generation += 1
        isConnected = true
        isBound = false
        connectionNumber = number
        keepalive = SyncKeepalive(pingPeriod: pingPeriod, pongTimeout: pongTimeout, connectedAt: now)
    }

    /// The file's state as the connection begins (its held downloads dropped): bind, and upload if it has its identity.
    mutating func bind(_ snapshot: SyncFileSnapshot, recorded: [Int64: [RejectedUpdate]]) -> [Action] {
        isBound = isConnected
        merge(recorded)
        fileIdent = snapshot.fileIdent
        if snapshot.isClientResetUnderWay {
            // Begun on an earlier connection, or before a restart. A flexible-sync file waits for the bootstrap of
            // the subscription set it sends again; any other collects the downloads until it has caught up.
            var progress = reset ?? ResetProgress()
            progress.awaitedVersions = settings.flexibleSync ? Set(snapshot.pendingSubscriptions.map(\.version)) : []
            progress.awaitsBootstrap = !progress.awaitedVersions.isEmpty
            reset = progress
        } else {
            reset = nil
        }
        uploadAck = max(uploadAck, snapshot.uploadAck)
        downloadedServerVersion = snapshot.cursor.serverVersion
        downloadBase = snapshot.cursor.serverVersion
        announcedLatest = snapshot.cursor.serverVersion
        lastSentClientVersion = snapshot.uploadAck
        lastSentQueryVersion = snapshot.activeSubscriptions?.version ?? 0
        held = HeldDownloads()
        isBootstrapping = false
        isStreaming = false
        markRequests = [:]
        pendingCompensations = []
        lastDownload = nil
        var actions: [Action] = [
            .log(.debug, "\(prefix) Sending: BIND(\(settings.path), file ident "
                + "\(snapshot.fileIdent.map { "\($0)" } ?? "none"), cursor \(snapshot.cursor.serverVersion), upload ack \(snapshot.uploadAck))"),
            .send(.bind(
                session: 1, mode: settings.flexibleSync ? .flexible : .partition, partition: settings.partition,
                fileIdent: snapshot.fileIdent, salt: snapshot.salt, cursor: snapshot.cursor,
                subscriptions: settings.flexibleSync ? (snapshot.activeSubscriptions ?? SubscriptionQuery(version: 0, queries: [:])) : nil)),
        ]
        if fileIdent != nil { actions += afterIdent() }
        return actions
    }

    /// Why a connection ended, as the loop classifies the error that ended it.
    enum Ending {
        /// The server closed it, or this side did (a bad message, an error, no pong).
        case closed
        case streamInterrupted(BootstrapStreamInterrupted)
        /// The file could not be read or written.
        case fileFailure(String)
        /// A held bootstrap batch could not be read.
        case unreadableDownload(String)
        /// Anything else (the connect failed, the socket broke).
        case other(String)
    }

    /// The connection ended: how long to wait before the next attempt (zero: at once). `jitter` (0…0.25) spreads the
    /// clients a server restart dropped.
    mutating func connectionEnded(_ ending: Ending, at now: Date, jitter: Double) -> (actions: [Action], delay: Duration) {
        var actions: [Action] = []
        let connection = "Sync: Connection[\(connectionNumber)]:"
        switch ending {
        case .closed: break
        case .streamInterrupted(let error):
            actions.append(.log(.info, "\(connection) \(error)"))
            if error.givesWay { skipBackoff = true }
        case .fileFailure(let description):
            actions += fileFailure(description, at: now)
        case .unreadableDownload(let description):
            // The server sent a batch that cannot be read (only its envelope was read on arrival): the whole
            // bootstrap is rolled back. It will come again, so the backoff grows with each failure.
            actions.append(.log(.error, "\(connection) bad message from the server: \(description)"))
            unreadableHeldDownloads += 1
            failedAttempts = max(failedAttempts, unreadableHeldDownloads)
        case .other(let description):
            actions.append(.log(.info, "\(connection) \(description)"))
        }
        isConnected = false
        isBound = false
        isStreaming = false
        if skipBackoff {
            skipBackoff = false
            return (actions, .zero)
        }
        let delay = SyncBackoff.delay(attempt: failedAttempts, jitter: jitter)
        // A growing wait is what stalls an upload for tens of seconds: say so where logs are kept (info).
        if failedAttempts > 0 {
            actions.append(.log(.info, "Sync: Session[\(settings.sessionNumber)]: connecting again in \(delay) "
                + "(\(failedAttempts + 1) attempts in a row)"))
        }
        failedAttempts += 1
        return (actions, delay)
    }

    /// `reconnect()`: while disconnected, the next attempt starts at once (true: cut the backoff wait short).
    mutating func reconnectRequested() -> Bool {
        guard !isConnected else { return false }
        failedAttempts = 0
        return true
    }

    /// The session stopped (suspend, log out, close): downloads held for a later message are dropped.
    mutating func stopped() {
        isConnected = false
        isBound = false
        isStreaming = false
        held = HeldDownloads()
        isBootstrapping = false
    }

    /// The session could not read or write its file: the first failure in a row is reported, and the backoff grows
    /// with them. A failure ten minutes or more after the one before starts a new row.
    private mutating func fileFailure(_ description: String, at now: Date) -> [Action] {
        var actions: [Action] = [.log(.error, "Sync: Session[\(settings.sessionNumber)]: could not read or write \(settings.path): \(description)")]
        if let last = lastFileFailure, now.timeIntervalSince(last) >= 600 { fileFailures = 0 }
        lastFileFailure = now
        fileFailures += 1
        failedAttempts = max(failedAttempts, fileFailures)
        if fileFailures == 1 {
            actions.append(.report(SyncError(.clientInternalError, "The sync session could not read or write its file: \(description)")))
        }
        return actions
    }

    // MARK: Keepalive

    /// A tick of the connection's clock.
    mutating func tick(at now: Date, readerWaiting: Bool) -> [Action] {
        guard isConnected else { return [] }
        switch keepalive.tick(at: now, readerWaiting: readerWaiting) {
        case .sendPing(let timestamp): return [.send(.ping(timestamp: timestamp))]
        case .close: return [.log(.info, "Sync: Connection[\(connectionNumber)]: no pong from the server; reconnecting"), .close]
        case .none: return []
        }
    }

    // MARK: Marks

    mutating func sendMark(_ purpose: MarkPurpose) -> [Action] {
        guard isBound else { return [] }
        let id = nextRequestId
        nextRequestId += 1
        markRequests[id] = purpose
        return [.send(.mark(session: 1, requestId: id))]
    }

    /// Once the file has its identity: ask for the download marks waiters need, and upload.
    mutating func afterIdent() -> [Action] {
        guard isBound else { return [] }
        var actions: [Action] = []
        if !downloadWaiters.isEmpty && reset == nil { actions += sendMark(.download) }
        return actions + pump()
    }
}

/// Reconnect delays (1 s doubling to 5 min, plus `jitter` × that, 0…0.25). Keepalive timing and the connect timeout
/// come from the app's `SyncTimeoutOptions`.
enum SyncBackoff {
    static func delay(attempt: Int, jitter: Double = Double.random(in: 0...0.25)) -> Duration {
        let base = min(300.0, pow(2.0, Double(min(attempt, 10))))
        return .milliseconds(Int((base + jitter * base) * 1000))
    }
}
