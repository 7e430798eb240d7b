import Foundation
import Logging
import OutpostCore
import Synchronization

/// One bound sync session: one client file of one user, multiplexed on a connection.
///
/// A session handles its events one at a time on its own task — the client's messages in order, and wakes when
/// the app has new server versions — so uploads, subscription changes and downloads never interleave.
final class ServerSession: @unchecked Sendable {
    // All mutable state is confined to the task running `run()`; other tasks only call `enqueue`/`finish`,
    // which go through the AsyncStream continuation (itself thread-safe).
    enum Event: Sendable {
        /// A message and the size of its text.
        case message(ClientMessage, bytes: Int)
        /// Upload messages that arrived one after another (``UploadBatch``).
        case uploads(UploadBatch)
        case wake
    }

    let id: Int64
    let engine: SyncEngine
    let user: AuthenticatedUser
    let writer: FrameWriter
    let logger: Logger
    /// The connection's share of queued message text: taken by ``enqueue(_:bytes:)``, given back when `run()`
    /// takes the message.
    let inbound: InboundBudget
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private(set) var waker: SessionWaker!
    /// The batch of uploads queued last, which later uploads join until the session takes it or another message
    /// arrives (only touched by `enqueue`, which the connection loop calls from one task).
    private var openBatch: UploadBatch?
    /// Uploads of at least this many instructions commit while the session integrates the next ones.
    static let pipelinedUploadSize = 100
    /// Events queued and not yet taken by `run()`.
    private let queued = EventCount()
    /// An upload integrated and queued for commit whose acknowledgement waits until the session has integrated the
    /// uploads queued right behind it (docs/protocol.md §6): its commit overlaps their integration.
    private var uploadInFlight: IntegratedUpload?

    var settings: SyncAppSettings!
    var fileIdent: Int64 = 0
    var view: SessionView!
    /// The view before the latest bootstrap, and the server version up to which the bootstrap's documents may
    /// reflect changes the client has not downloaded yet (see `SessionView.instruction(for:forced:formerView:)`).
    var formerView: SessionView?
    var formerViewUntil: Int64 = 0
    var cursor = DownloadCursor.start
    /// Objects this client created in changesets integrated by this session, which its downloads need not send
    /// back, by server version (see `createsHeldByUploader`).
    var heldCreates: [Int64: HeldCreates] = [:]
    /// The highest client version of the file integrated so far (see ``sentUploadAck``).
    var uploadAck: Int64 = 0
    /// Compensating writes of this session's uploads not yet announced to the client (231), by server version:
    /// downloads acknowledge no client version from the first of them on (``sentUploadAck``).
    var unannouncedCompensations: [(serverVersion: Int64, clientVersion: Int64)] = []
    var latestQueryVersion: Int64 = 0
    var isBound = false
    /// Set after a session-level error: further messages other than `unbind` are ignored.
    var hasFailed = false
    var canWrite = true

    init(id: Int64, engine: SyncEngine, user: AuthenticatedUser, writer: FrameWriter, logger: Logger,
         inbound: InboundBudget = InboundBudget(limit: SyncEngine.defaultInboundLimit)) {
        self.id = id
        self.inbound = inbound
        self.engine = engine
        self.user = user
        self.writer = writer
        var logger = logger
        logger[metadataKey: "session"] = "\(id)"
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let continuation = self.continuation
        let queued = self.queued
        waker = SessionWaker {
            queued.value.add(1, ordering: .relaxed)
            continuation.yield(.wake)
        }
    }

    /// Queues a message whose text was `bytes` long, after waiting until the connection's queues have room for
    /// it (``InboundBudget``): the connection reads no further frames meanwhile.
    func enqueue(_ message: ClientMessage, bytes: Int) async {
        await inbound.acquire(bytes)
        if case .upload(_, let changesets) = message {
            if let openBatch, openBatch.join(changesets, bytes: bytes) { return }
            let batch = UploadBatch(changesets, bytes: bytes)
            openBatch = batch
            queued.value.add(1, ordering: .relaxed)
            continuation.yield(.uploads(batch))
            return
        }
        openBatch = nil
        queued.value.add(1, ordering: .relaxed)
        continuation.yield(.message(message, bytes: bytes))
    }

    /// Ends the session after the events already queued.
    func finish() {
        continuation.finish()
    }

    /// Handles events until the session ends.
    func run() async {
        for await event in events {
            queued.value.subtract(1, ordering: .relaxed)
            switch event {
            case .wake:
                waker.consumed()
                await finishUploadInFlight()
                guard isBound, !hasFailed else { continue }
                await sendDownloads()
            case .message(let message, let bytes):
                inbound.release(bytes)
                await finishUploadInFlight()
                await handle(message)
            case .uploads(let batch):
                let (groups, bytes) = batch.take()
                inbound.release(bytes)
                await handleUploads(groups)
            }
        }
        await finishUploadInFlight()
        if isBound { await engine.hub.unregister(appId: user.appId, waker) }
    }

    /// Acknowledges the upload in flight, if any (a failed commit fails the session).
    private func finishUploadInFlight() async {
        guard let upload = uploadInFlight else { return }
        uploadInFlight = nil
        await reportingErrors { try await finishUpload(upload) }
    }

    /// An upload message: integrated and queued for commit; then the upload before it is acknowledged, and this
    /// one too unless it is large and more events wait (the next uploads are then integrated while it commits).
    /// Small uploads are acknowledged at once: their commit is short, and a change one client waits to see on
    /// another (fan-out) must not wait for the session's next event.
    ///
    /// - Parameter written: the fields the changesets write (``SchemaGuard/writtenFields(_:)``), when known already.
    private func pipelinedUpload(_ changesets: [UploadChangeset], written: [String: [String: Value]]? = nil) async throws {
        try requireBound()
        let previous = uploadInFlight
        uploadInFlight = nil
        let start: UploadStart
        do {
            start = try await beginUpload(changesets, written: written)
        } catch {
            if let previous { try await finishUpload(previous) }
            throw error
        }
        if let previous { try await finishUpload(previous, beforeLaterUpload: true) }
        switch start {
        case .nothingNew:
            await sendDownloads(always: true)
        case .integrated(let upload):
            if upload.instructions >= Self.pipelinedUploadSize, queued.value.load(ordering: .relaxed) > 0 {
                uploadInFlight = upload
            } else {
                try await finishUpload(upload)
            }
        }
    }

    private func handle(_ message: ClientMessage) async {
        if case .unbind = message {
            await writer.send(.unbound(session: id))
            finish()
            return
        }
        guard !hasFailed else { return }
        await reportingErrors {
            switch message {
            case .bind(_, let mode, let partition, let ident, let salt, let cursor, let subs):
                try await bind(mode: mode, partition: partition, fileIdent: ident, salt: salt, cursor: cursor, subscriptions: subs)
            case .query(_, let subs):
                try requireBound()
                await changeQuery(subs)
            case .upload(_, let changesets):
                try await pipelinedUpload(changesets)
            case .mark(_, let requestId):
                try requireBound()
                await sendDownloads()
                await writer.send(.mark(session: id, requestId: requestId, serverVersion: cursor.serverVersion))
            case .unbind, .ping:
                break
            }
        }
    }

    /// Runs one step of handling a message; an error fails the session.
    private func reportingErrors(_ step: () async throws -> Void) async {
        do {
            try await step()
        } catch let error as SyncProtocolError {
            await fail(error)
        } catch {
            logger.error("sync session failed: \(error)")
            await fail(SyncProtocolError(.otherSessionError, "Internal server error; the session will be retried"))
        }
    }

    /// Upload messages that arrived together: integrated in one go when every group passes the checks that come
    /// before integration, otherwise one message after another, as they would have been handled alone.
    private func handleUploads(_ groups: [[UploadChangeset]]) async {
        guard groups.count > 1 else {
            await handle(.upload(session: id, changesets: groups.first ?? []))
            return
        }
        guard !hasFailed else { return }
        var together = isBound
        var written: [[String: [String: Value]]] = []
        if together {
            let schema = SchemaGuard(settings: settings)
            for group in groups {
                // As `beginUpload` checks them: after the partition check filled in partition values.
                guard let checked = try? checkPartition(group) else {
                    together = false
                    break
                }
                let fields = SchemaGuard.writtenFields(checked)
                guard SchemaGuard.checkNames(fields) == nil, schema.check(fields) == nil else {
                    together = false
                    break
                }
                written.append(fields)
            }
        }
        guard together else {
            for group in groups { await handle(.upload(session: id, changesets: group)) }
            return
        }
        await reportingErrors {
            try await pipelinedUpload(groups.flatMap { $0 }, written: SchemaGuard.merge(written))
        }
    }

    private func requireBound() throws(SyncProtocolError) {
        guard isBound else { throw SyncProtocolError(.badMessageOrder, "Bad message order: the session is not bound yet") }
    }

    /// Reports a session-level error and stops serving the session (the client unbinds).
    func fail(_ error: SyncProtocolError) async {
        hasFailed = true
        let transient = error.code == .otherSessionError
        // The file's state does not match the server's (its identity, download cursor or upload acknowledgement is
        // unknown here, as after a restore from a backup): the client must reset it, as the original asks.
        let reset = error.code.requiresClientReset
        let info = SyncErrorInfo(
            session: id, code: error.code, message: error.message, tryAgain: transient,
            action: reset ? .clientReset : transient ? .transient : .applicationBug, shouldClientReset: reset)
        logger.warning("sync session error \(error.code.rawValue): \(error.message)")
        await engine.log(appId: user.appId, kind: "sync", level: "warning", "session error \(error.code.rawValue): \(error.message)")
        await writer.send(.error(info))
    }
}

/// A count shared by a session and the closures that queue its events.
private final class EventCount: Sendable {
    let value = Atomic<Int>(0)
}
