import Foundation
import OutpostCore

/// Uploads one event store's shards to the server's `AuditEvent` collection, in the background: shard by shard,
/// oldest first, each in `_id` order, in batches sent to `POST …/app/<appId>/events` with the event user's access
/// token (Outpost's own channel; see `docs/events.md`, "Upload"). The events of a batch are deleted from the shard
/// only after the server answered, and the server skips events it already has, so a crash or a lost answer at any
/// point neither loses nor duplicates an event. An empty shard that nobody writes to is deleted.
///
/// Network failures and server errors (5xx) are retried with backoff (1 s doubling to 60 s) and only logged. An
/// answer that can never succeed — the schema refused with development mode off, or a rejected batch — is fatal:
/// it is logged as `Events: Received sync error: …`, handed to the configuration's `errorHandler`, or, with no
/// handler, aborts the process (as Realm). Uploading then stops until a Realm with events opens again.
final class EventUploader: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is guarded by `lock`.

    unowned let store: EventStore
    private let lock = NSLock()
    private var user: User?
    private var errorHandler: (@Sendable (Error) -> Void)?
    private var log: @Sendable (SyncLogLevel, String) -> Void = { _, _ in }
    private var running = false
    private var kicked = false
    private var stoppedByFatalError = false

    /// Events per request and bytes per request, far below the server's limits.
    static let batchLimit = 10_000
    static let batchBytes = 8 * 1024 * 1024

    init(store: EventStore) {
        self.store = store
    }

    /// Sets who uploads and who hears about errors (the latest Realm opened with events wins); clears a fatal stop.
    func configure(user: User, errorHandler: (@Sendable (Error) -> Void)?, log: @escaping @Sendable (SyncLogLevel, String) -> Void) {
        lock.withLock {
            self.user = user
            self.errorHandler = errorHandler
            self.log = log
            stoppedByFatalError = false
        }
    }

    /// Asks for an upload pass (after a commit, a rotation, or a Realm opening); passes never overlap.
    func kick() {
        let start = lock.withLock { () -> Bool in
            kicked = true
            guard !running, !stoppedByFatalError, user != nil else { return false }
            running = true
            return true
        }
        if start { Task.detached { await self.run() } }
    }

    private func run() async {
        var delay = 1.0
        while true {
            let next = lock.withLock { () -> (User, @Sendable (SyncLogLevel, String) -> Void)? in
                guard kicked, !stoppedByFatalError, let user else { return nil }
                kicked = false
                return (user, log)
            }
            guard let (user, log) = next else { break }
            guard user.isLoggedIn else {
                log(.info, "Events: Upload waits: user '\(user.id)' is logged out")
                continue
            }
            do {
                try await uploadAll(as: user, log: log)
                delay = 1
            } catch let error as SyncError {
                report(error, log: log)
            } catch {
                log(.warn, "Events: Upload failed, retrying in \(Int(delay)) s: \(error)")
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                delay = min(delay * 2, 60)
                lock.withLock { kicked = true }
            }
        }
        lock.withLock { running = false }
        // A kick that came in between the last check and `running = false` starts a new pass.
        if lock.withLock({ kicked && !stoppedByFatalError && user != nil }) { kick() }
    }

    /// Uploads every shard, oldest first; an emptied shard is deleted. Over an ``EventHTTPConnection`` the next
    /// batch is read and sent while the server stores the one before (``EventUploadClient/pipelineDepth``); a
    /// batch's events are deleted from the shard only once its answer arrived, in order.
    private func uploadAll(as user: User, log: @Sendable (SyncLogLevel, String) -> Void) async throws {
        let client = EventUploadClient(user: user)
        defer { client.close() }
        for shard in store.shardFiles {
            let partition = store.partitionValue(ofShard: shard)
            var uploaded = 0
            var announced = false
            var inFlight: [(events: [StoredEvent], pending: EventUploadClient.Pending)] = []
            var after: ObjectId?
            var exhausted = false
            while true {
                while !exhausted, inFlight.count < client.pipelineDepth {
                    let events = try store.pendingEvents(
                        inShard: shard, after: after, limit: Self.batchLimit, maxBytes: Self.batchBytes)
                    guard let last = events.last else {
                        exhausted = true
                        break
                    }
                    if !announced {
                        log(.info, "Events: Uploading '\(shard.path)' (partition '\(partition)')")
                        announced = true
                    }
                    let body = EventUploadBody.bytes(partition: partition, events: events)
                    inFlight.append((events, try await client.start(body)))
                    after = last.id
                }
                guard !inFlight.isEmpty else { break }
                let (events, pending) = inFlight.removeFirst()
                try await client.finish(pending, partition: partition)
                try store.acknowledge(events.map(\.id), inShard: shard)
                uploaded += events.count
            }
            if uploaded > 0 { log(.info, "Events: Upload on '\(partition)' completed.") }
            store.removeIfFinished(shard)
        }
    }

    /// A fatal error: logged, then the error handler, or abort when there is none.
    private func report(_ error: SyncError, log: @Sendable (SyncLogLevel, String) -> Void) {
        let handler = lock.withLock { () -> (@Sendable (Error) -> Void)? in
            stoppedByFatalError = true
            return errorHandler
        }
        log(.error, "Events: Received sync error: \(error.message)")
        guard let handler else {
            FileHandle.standardError.write(Data("Events: fatal upload error and no errorHandler: \(error.message)\n".utf8))
            abort()
        }
        handler(error)
    }
}
