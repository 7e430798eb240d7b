import Foundation
import OutpostCore
import OutpostServer

/// A ``ServerStorage`` that forwards everything to another one, except that a test can hold the next read of a
/// collection's documents (`documents(appId:collection:)`, which a subscription bootstrap makes) at a gate, change
/// data meanwhile, and release it: a deterministic way to interleave a bootstrap with other writes.
final class GatedStorage: ServerStorage, @unchecked Sendable {  // gate state is behind `lock`
    let base: any ServerStorage
    private let lock = NSLock()
    private var armed = false
    private var entered = false
    private var release: CheckedContinuation<Void, Never>?
    private var released = false

    init(_ base: any ServerStorage) { self.base = base }

    /// Makes the next `documents(appId:collection:)` call wait until ``open()``.
    func arm() { lock.withLock { armed = true; entered = false; released = false } }
    /// Whether a read is waiting at the gate.
    var isHolding: Bool { lock.withLock { entered } }
    /// Lets the held read go on.
    func open() {
        let c: CheckedContinuation<Void, Never>? = lock.withLock {
            released = true
            defer { release = nil }
            return release
        }
        c?.resume()
    }

    func documents(appId: String, collection: String) async throws -> [Document] {
        let hold: Bool = lock.withLock {
            guard armed else { return false }
            armed = false
            entered = true
            return true
        }
        if hold {
            await withCheckedContinuation { c in
                let now: Bool = lock.withLock {
                    if released { return true }
                    release = c
                    return false
                }
                if now { c.resume() }
            }
        }
        return try await base.documents(appId: appId, collection: collection)
    }

    // Everything else is forwarded.
    func prepare() async throws { try await base.prepare() }
    func close() async throws { try await base.close() }
    func insertUser(_ user: StoredUser) async throws { try await base.insertUser(user) }
    func user(appId: String, id: String) async throws -> StoredUser? { try await base.user(appId: appId, id: id) }
    func user(appId: String, provider: String, identity: String) async throws -> StoredUser? {
        try await base.user(appId: appId, provider: provider, identity: identity)
    }
    func updateUser(_ user: StoredUser) async throws { try await base.updateUser(user) }
    func deleteUser(appId: String, id: String) async throws -> Bool { try await base.deleteUser(appId: appId, id: id) }
    func users(appId: String) async throws -> [StoredUser] { try await base.users(appId: appId) }
    func insertSession(_ session: StoredSession) async throws { try await base.insertSession(session) }
    func session(appId: String, id: String) async throws -> StoredSession? { try await base.session(appId: appId, id: id) }
    func deleteSession(appId: String, id: String) async throws -> Bool { try await base.deleteSession(appId: appId, id: id) }
    func insertAPIKey(_ key: StoredAPIKey) async throws { try await base.insertAPIKey(key) }
    func apiKeys(appId: String, userId: String) async throws -> [StoredAPIKey] {
        try await base.apiKeys(appId: appId, userId: userId)
    }
    func apiKey(appId: String, id: String) async throws -> StoredAPIKey? { try await base.apiKey(appId: appId, id: id) }
    func deleteAPIKey(appId: String, id: String) async throws -> Bool { try await base.deleteAPIKey(appId: appId, id: id) }
    func allocateClientFile(appId: String, userId: String) async throws -> ClientFile {
        try await base.allocateClientFile(appId: appId, userId: userId)
    }
    func clientFile(appId: String, ident: Int64) async throws -> ClientFile? {
        try await base.clientFile(appId: appId, ident: ident)
    }
    func transaction<T: Sendable>(appId: String, _ body: @Sendable (any StorageTransaction) async throws -> T) async throws -> T {
        try await base.transaction(appId: appId, body)
    }
    func latestServerVersion(appId: String) async throws -> Int64 { try await base.latestServerVersion(appId: appId) }
    func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
        try await base.changesets(appId: appId, after: after, upTo: upTo, limit: limit)
    }
    func document(appId: String, collection: String, primaryKey: Value) async throws -> Document? {
        try await base.document(appId: appId, collection: collection, primaryKey: primaryKey)
    }
    func collections(appId: String) async throws -> [String] { try await base.collections(appId: appId) }
    func changeNotifications() async throws -> AsyncStream<ChangeNotification> { try await base.changeNotifications() }
    func setting(appId: String, key: String) async throws -> Value? { try await base.setting(appId: appId, key: key) }
    func setSetting(appId: String, key: String, value: Value) async throws {
        try await base.setSetting(appId: appId, key: key, value: value)
    }
    func appendLog(_ record: LogRecord) async throws { try await base.appendLog(record) }
    func logs(appId: String, kind: String?, since: Date?, until: Date?, limit: Int) async throws -> [LogRecord] {
        try await base.logs(appId: appId, kind: kind, since: since, until: until, limit: limit)
    }
}
