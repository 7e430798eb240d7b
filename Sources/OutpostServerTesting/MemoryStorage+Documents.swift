import Foundation
import OutpostCore
import OutpostServer
import Synchronization

extension MemoryStorage {
    public func transaction<T: Sendable>(
        appId: String, _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> T {
        try await withAppLock(appId) {
            let transaction = MemoryTransaction(storage: self, appId: appId)
            let result = try await body(transaction)
            commit(transaction.pending.withLock { $0 }, appId: appId)
            return result
        }
    }

    private func commit(_ pending: MemoryTransaction.Pending, appId: String) {
        let (latest, listeners) = state.withLock { state -> (Int64, [AsyncStream<ChangeNotification>.Continuation]) in
            var app = state.apps[appId] ?? AppState()
            for (collection, writes) in pending.writes {
                for (key, document) in writes {
                    app.documents[collection, default: [:]][key] = document
                }
                if app.documents[collection]?.isEmpty == true { app.documents[collection] = nil }
            }
            app.history.append(contentsOf: pending.changesets)
            app.integratedVersions.merge(pending.integratedVersions) { _, new in new }
            app.audit.apply(batch: pending.auditBatch, removals: pending.auditRemovals)
            state.apps[appId] = app
            return (app.history.last?.serverVersion ?? 0, Array(state.listeners.values))
        }
        guard !pending.changesets.isEmpty else { return }
        for listener in listeners { listener.yield(ChangeNotification(appId: appId, serverVersion: latest)) }
    }

    public func latestServerVersion(appId: String) async throws -> Int64 {
        read(appId) { $0.history.last?.serverVersion ?? 0 }
    }

    public func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
        read(appId) { app in
            Array(app.history.lazy.filter { $0.serverVersion > after && $0.serverVersion <= upTo }.prefix(max(0, limit)))
        }
    }

    public func document(appId: String, collection: String, primaryKey: Value) async throws -> Document? {
        read(appId) { $0.documents[collection]?[primaryKey] }
    }

    public func documents(appId: String, collection: String) async throws -> [Document] {
        read(appId) { app in
            (app.documents[collection] ?? [:]).sorted { Self.primaryKeyOrder($0.key, $1.key) }.map(\.value)
        }
    }

    public func collections(appId: String) async throws -> [String] {
        read(appId) { app in app.documents.filter { !$0.value.isEmpty }.keys.sorted() }
    }

    public func changeNotifications() async throws -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream<ChangeNotification>.makeStream()
        let id = UUID()
        state.withLock { $0.listeners[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Primary keys of one type in their natural order; different types by type name.
    static func primaryKeyOrder(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y
        case (.string(let x), .string(let y)): return x < y
        case (.objectId(let x), .objectId(let y)): return x < y
        case (.uuid(let x), .uuid(let y)): return x.uuidString < y.uuidString
        default:
            if a.typeName != b.typeName { return a.typeName < b.typeName }
            return a.extendedJSON.text < b.extendedJSON.text
        }
    }
}

/// One transaction of a ``MemoryStorage``: its writes wait in `pending` until the body returns.
final class MemoryTransaction: StorageTransaction {
    struct Pending {
        /// collection → primary key → new document (nil: deleted).
        var writes: [String: [Value: Document?]] = [:]
        var changesets: [ServerChangeset] = []
        var integratedVersions: [Int64: Int64] = [:]
        var auditBatch: AuditBatchDraft?
        var auditRemovals: [AuditRemoval] = []
    }

    let storage: MemoryStorage
    let appId: String
    let pending = Mutex(Pending())

    init(storage: MemoryStorage, appId: String) {
        self.storage = storage
        self.appId = appId
    }

    func latestServerVersion() async throws -> Int64 {
        let committed = storage.read(appId) { $0.history.last?.serverVersion ?? 0 }
        return pending.withLock { $0.changesets.last?.serverVersion ?? committed }
    }

    func documents(collection: String, primaryKeys: [Value]) async throws -> [Value: Document] {
        let committed = storage.read(appId) { $0.documents[collection] ?? [:] }
        let writes = pending.withLock { $0.writes[collection] ?? [:] }
        var out: [Value: Document] = [:]
        for key in primaryKeys {
            if let written = writes[key] {
                if let document = written { out[key] = document }
            } else if let document = committed[key] {
                out[key] = document
            }
        }
        return out
    }

    func putDocument(collection: String, _ document: Document) async throws {
        guard let key = document["_id"] else {
            throw StorageError(.invalidName, "a document of '\(collection)' has no _id")
        }
        pending.withLock { $0.writes[collection, default: [:]][key] = .some(document) }
    }

    func deleteDocument(collection: String, primaryKey: Value) async throws -> Bool {
        let existed = try await !documents(collection: collection, primaryKeys: [primaryKey]).isEmpty
        pending.withLock { $0.writes[collection, default: [:]][primaryKey] = .some(nil) }
        return existed
    }

    func appendChangeset(_ changeset: ServerChangesetDraft) async throws -> Int64 {
        let next = try await latestServerVersion() + 1
        pending.withLock { $0.changesets.append(ServerChangeset(serverVersion: next, draft: changeset)) }
        return next
    }

    func integratedClientVersion(fileIdent: Int64) async throws -> Int64 {
        if let version = pending.withLock({ $0.integratedVersions[fileIdent] }) { return version }
        return storage.read(appId) { $0.integratedVersions[fileIdent] ?? 0 }
    }

    func setIntegratedClientVersion(fileIdent: Int64, _ version: Int64) async throws {
        pending.withLock { $0.integratedVersions[fileIdent] = version }
    }

    func recordAuditBatch(_ batch: AuditBatchDraft) async throws {
        pending.withLock { pending in
            precondition(pending.auditBatch == nil, "A storage transaction records at most one audit batch")
            pending.auditBatch = batch
        }
    }

    func removeAuditEvents(_ removals: [AuditRemoval]) async throws {
        pending.withLock { $0.auditRemovals += removals }
    }
}
