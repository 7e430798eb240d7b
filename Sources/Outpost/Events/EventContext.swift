import Foundation
import OutpostCore

/// The event recording state of one Realm file, shared by every instance of that file in the process (Realm's
/// audit context): the active scopes and what they recorded, the metadata, the serial worker and the store.
final class EventContext: @unchecked Sendable {
    // @unchecked Sendable: the mutable state below is guarded by `lock`; `store` and the worker queue are
    // thread-safe; the rest is immutable.

    /// The configuration the context was created with (later configurations only update the metadata).
    let configuration: EventConfiguration
    /// The Realm file path.
    let path: String
    let store: EventStore
    /// Persists committed scopes and custom events, in call order (Realm's `Realm audit worker`).
    let worker = DispatchQueue(label: "Realm audit worker")
    private let fallbackLogger: (@Sendable (SyncLogLevel, String) -> Void)?

    private let lock = NSLock()
    private var metadataLocked: [String: String]
    private var nextScopeId = 1
    /// Active scope id → the events recorded for it so far.
    private var activeLocked: [Int: [RecordedEvent]] = [:]
    /// Read without the lock as a fast check on hot paths; written under it.
    private(set) nonisolated(unsafe) var hasActiveScopes = false

    init(configuration: EventConfiguration, path: String, store: EventStore,
         fallbackLogger: (@Sendable (SyncLogLevel, String) -> Void)?) {
        self.configuration = configuration
        self.path = path
        self.store = store
        self.fallbackLogger = fallbackLogger
        self.metadataLocked = configuration.metadata ?? [:]
    }

    // MARK: Logging

    func log(_ level: SyncLogLevel, _ message: String) {
        let line = "Events: \(message)"
        if let logger = configuration.logger { logger(level, line) } else { fallbackLogger?(level, line) }
    }

    // MARK: Metadata

    var metadata: [String: String] { lock.withLock { metadataLocked } }

    func updateMetadata(_ metadata: [String: String]) {
        do {
            try EventConfiguration.validate(metadata: metadata)
        } catch {
            preconditionFailure("\(error)")
        }
        lock.withLock { metadataLocked = metadata }
    }

    // MARK: Scopes

    /// Starts a scope; returns its id and the metadata snapshot it keeps.
    func beginScope(activity: String) -> (id: Int, metadata: [String: String]) {
        let result = lock.withLock { () -> (Int, [String: String]) in
            let id = nextScopeId
            nextScopeId += 1
            activeLocked[id] = []
            hasActiveScopes = true
            return (id, metadataLocked)
        }
        log(.trace, "Beginning event scope '\(result.0)' on '\(path)' named '\(activity)'")
        return result
    }

    func isActive(_ id: Int) -> Bool { lock.withLock { activeLocked[id] != nil } }

    /// Changes whenever a scope begins (read events use it to know that every active scope saw an earlier record).
    var scopeGeneration: Int { lock.withLock { nextScopeId } }

    /// Ends a scope and returns what it recorded. A scope that is not active is a programming error.
    func endScope(_ id: Int) -> [RecordedEvent] {
        let events = lock.withLock { () -> [RecordedEvent]? in
            let events = activeLocked.removeValue(forKey: id)
            hasActiveScopes = !activeLocked.isEmpty
            return events
        }
        guard let events else {
            preconditionFailure("Cannot end event scope: scope '\(id)' not in progress. Scope may have already been ended?")
        }
        return events
    }

    /// Adds an event to every active scope.
    func record(_ event: RecordedEvent) {
        lock.withLock {
            for id in activeLocked.keys { activeLocked[id]!.append(event) }
        }
    }

    // MARK: Persisting

    /// Starts writing a transaction's write event to JSON on the worker, before the scopes that record it commit.
    func prepare(_ payload: EventWritePayload) {
        worker.async { payload.prepare() }
    }

    /// Serializes a committed scope and stores it (one store transaction), then calls `completion` on the worker.
    func persistScope(id: Int, activity: String, metadata: [String: String], events: [RecordedEvent],
                      completion: (@Sendable (Error?) -> Void)?) {
        worker.async { [self] in
            log(.info, "Processing scope '\(id)' named '\(activity)'")
            do {
                let rows = try EventSerializer.rows(for: events, activity: activity, metadata: metadata)
                if !rows.isEmpty { try store.append(rows) }
                completion?(nil)
                store.checkpointIfNeeded()
            } catch {
                log(.error, "Error when writing scope: \(error)")
                completion?(error)
            }
        }
    }

    /// Stores a custom event (its own unit, with the metadata of the moment of the call).
    func persistCustomEvent(activity: String, eventType: String?, data: String?,
                            completion: (@Sendable (Error?) -> Void)?) {
        let timestamp = Date()
        let metadata = self.metadata
        worker.async { [self] in
            do {
                try store.append([StoredEvent(id: ObjectId.generate(), timestamp: timestamp, activity: activity,
                                              event: eventType, data: data, metadata: metadata)])
                completion?(nil)
                store.checkpointIfNeeded()
            } catch {
                log(.error, "Error when writing custom event: \(error)")
                completion?(error)
            }
        }
    }
}
