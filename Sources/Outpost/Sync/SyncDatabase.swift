import Foundation
import OutpostCore

/// The sync session's own connection to its Realm file: a Realm instance confined to a private serial queue,
/// used to read the upload queue and to apply downloads (which other instances then see as ordinary commits,
/// with notifications).
final class SyncDatabase: @unchecked Sendable {  // `instance` is only touched on `queue`
    let queue: DispatchQueue
    private let configuration: Realm.Configuration
    private var instance: RealmInstance?

    init(configuration: Realm.Configuration) {
        var configuration = configuration
        configuration.isInternalWorker = true
        self.configuration = configuration
        queue = DispatchQueue(label: "outpost.sync.database")
    }

    /// Runs `body` on the queue with the instance, refreshed to the latest version.
    func perform<T: Sendable>(_ body: @escaping @Sendable (RealmInstance) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    let instance = try self.open()
                    if !instance.isInWriteTransaction { try instance.advance() }
                    continuation.resume(returning: try body(instance))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Rolls back the bootstrap stream `id` if it is still open on the instance, as soon as the queue is free (from
    /// any thread: a writer about to wait for the stream's transaction, ``BootstrapStream``).
    func cancelBootstrapStream(_ id: ObjectIdentifier) {
        queue.async { self.instance?.syncCancelBootstrapStream(id) }
    }

    /// Closes the instance (on the queue).
    func close() {
        queue.async { self.instance = nil }
    }

    /// Closes the instance and returns once it is closed (not from the queue itself).
    func closeNow() {
        queue.sync { self.instance = nil }
    }

    private func open() throws -> RealmInstance {
        if let instance { return instance }
        let key = DispatchSpecificKey<UInt8>()
        queue.setSpecific(key: key, value: 1)
        let opened = try RealmInstance.open(configuration: configuration, confinement: .queue(queue, key), scheduler: nil)
        instance = opened
        return opened
    }
}

/// What the session reads from the file when it connects.
struct SyncFileSnapshot: Sendable {
    var fileIdent: Int64?
    var salt: Int64?
    var cursor: DownloadCursor
    var uploadAck: Int64
    var lastClientVersion: Int64
    /// The newest complete subscription set (the one the file holds data for).
    var activeSubscriptions: SubscriptionQuery?
    /// Subscription sets not complete yet, oldest first.
    var pendingSubscriptions: [SubscriptionQuery]
    var subscriptionStates: [Int64: SubscriptionSetState]
    /// A client reset is under way (``RealmInstance/syncBeginClientReset(_:)``): this connection resumes it.
    var isClientResetUnderWay: Bool
}

extension RealmInstance {
    func syncSnapshot() throws -> SyncFileSnapshot {
        let c = connection
        var active: SubscriptionQuery?
        var pending: [SubscriptionQuery] = []
        var states: [Int64: SubscriptionSetState] = [:]
        for row in try c.cached("SELECT version, state, error, subscriptions FROM __outpost_sync_subscriptions ORDER BY version").rows() {
            guard case .integer(let v) = row[0], case .text(let s) = row[1], case .text(let text) = row[3] else { continue }
            var error: String?
            if case .text(let e) = row[2] { error = e }
            let state = SubscriptionSetState(text: s, error: error)
            states[v] = state
            // Only the sets the session sends are decoded (this runs on every upload pump).
            switch state {
            case .complete, .pending, .bootstrapping, .awaitingMark:
                let query = SubscriptionQuery(version: v, queries: SubscriptionRecord.protocolQueries(SubscriptionRecord.decode(text)))
                if state == .complete { active = query } else { pending.append(query) }
            case .error, .superseded: break
            }
        }
        pending.removeAll { $0.version <= (active?.version ?? 0) }
        return SyncFileSnapshot(
            fileIdent: try SyncStore.integer(c, "fileIdent"), salt: try SyncStore.integer(c, "salt"),
            cursor: try SyncStore.cursor(c), uploadAck: try SyncStore.integer(c, "uploadAck") ?? 0,
            lastClientVersion: try SyncStore.lastClientVersion(c), activeSubscriptions: active,
            pendingSubscriptions: pending, subscriptionStates: states,
            isClientResetUnderWay: try SyncStore.integer(c, "clientReset") != nil)
    }

    /// Every stored subscription set's state (read while another process syncs the file).
    func syncSubscriptionStates() throws -> [Int64: SubscriptionSetState] {
        var states: [Int64: SubscriptionSetState] = [:]
        for row in try connection.cached("SELECT version, state, error FROM __outpost_sync_subscriptions").rows() {
            guard case .integer(let v) = row[0], case .text(let s) = row[1] else { continue }
            var error: String?
            if case .text(let e) = row[2] { error = e }
            states[v] = SubscriptionSetState(text: s, error: error)
        }
        return states
    }

    /// Stores a subscription set's state. A completed set supersedes the older ones, which are deleted (as the
    /// original does; a `SyncSubscriptionSet` of a deleted version reads `.superseded`), except refused ones, which
    /// keep their error. Before, every superseded set stayed, and each upload pump read them all.
    func syncSetSubscriptionState(_ version: Int64, _ state: SubscriptionSetState) throws {
        try beginWrite()
        do {
            var error: SQLiteValue = .null
            if case .error(let message) = state { error = .text(message) }
            try connection.cached("UPDATE __outpost_sync_subscriptions SET state = ?, error = ? WHERE version = ?")
                .run([.text(state.text), error, .integer(version)])
            if state == .complete {
                try connection.cached(
                    "DELETE FROM __outpost_sync_subscriptions WHERE version < ? AND state != 'error'"
                ).run([.integer(version)])
            }
            try commitWrite()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
    }

    func syncSetIdent(fileIdent: Int64, salt: Int64) throws {
        try beginWrite()
        do {
            try SyncStore.setInteger(connection, "fileIdent", fileIdent)
            try SyncStore.setInteger(connection, "salt", salt)
            try commitWrite()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
    }
}
