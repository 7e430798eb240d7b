import Foundation
import OutpostCore
import OutpostServer
import Synchronization

/// A ``ServerStorage`` that keeps everything in memory: a fast fake for tests, and the server's storage until the
/// SQLite driver is wired in. It implements the four protocols — accounts, documents and history, the log, the audit
/// index — transactions included (serialised per app; everything a transaction wrote becomes visible at once when it
/// returns, nothing when it throws).
public final class MemoryStorage: ServerStorage {
    struct AppState {
        var users: [String: StoredUser] = [:]
        var sessions: [String: StoredSession] = [:]
        var apiKeys: [String: StoredAPIKey] = [:]
        var clientFiles: [Int64: ClientFile] = [:]
        var documents: [String: [Value: Document]] = [:]
        var history: [ServerChangeset] = []
        var integratedVersions: [Int64: Int64] = [:]
        var settings: [String: Value] = [:]
        var logs: [LogRecord] = []
        var audit = MemoryAuditState()
    }

    struct State {
        var apps: [String: AppState] = [:]
        var nextFileIdent: Int64 = 1
        var listeners: [UUID: AsyncStream<ChangeNotification>.Continuation] = [:]
    }

    let state = Mutex(State())
    private let locks = AppLocks()

    public init() {}

    func read<T: Sendable>(_ appId: String, _ body: (AppState) -> T) -> T {
        state.withLock { body($0.apps[appId] ?? AppState()) }
    }

    func write<T: Sendable>(_ appId: String, _ body: (inout AppState) throws -> T) rethrows -> T {
        try state.withLock { state in
            var app = state.apps[appId] ?? AppState()
            defer { state.apps[appId] = app }
            return try body(&app)
        }
    }

    public func prepare() async throws {}

    public func close() async throws {
        let listeners = state.withLock { state in
            defer { state.listeners = [:] }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }

    // MARK: AccountStorage

    public func insertUser(_ user: StoredUser) async throws {
        try write(user.appId) { app in
            let clash = app.users[user.id] != nil
                || app.users.values.contains { $0.provider == user.provider && $0.identity == user.identity }
            if clash { throw StorageError(.duplicate, "user '\(user.id)' or identity '\(user.provider)' exists") }
            app.users[user.id] = user
        }
    }

    public func user(appId: String, id: String) async throws -> StoredUser? {
        read(appId) { $0.users[id] }
    }

    public func user(appId: String, provider: String, identity: String) async throws -> StoredUser? {
        read(appId) { app in app.users.values.first { $0.provider == provider && $0.identity == identity } }
    }

    public func updateUser(_ user: StoredUser) async throws {
        try write(user.appId) { app in
            guard app.users[user.id] != nil else { throw StorageError(.notFound, "no user '\(user.id)'") }
            app.users[user.id] = user
        }
    }

    public func deleteUser(appId: String, id: String) async throws -> Bool {
        write(appId) { app in
            guard app.users.removeValue(forKey: id) != nil else { return false }
            app.sessions = app.sessions.filter { $0.value.userId != id }
            app.apiKeys = app.apiKeys.filter { $0.value.userId != id }
            return true
        }
    }

    public func users(appId: String) async throws -> [StoredUser] {
        read(appId) { $0.users.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }
    }

    public func insertSession(_ session: StoredSession) async throws {
        try write(session.appId) { app in
            guard app.sessions[session.id] == nil else { throw StorageError(.duplicate, "session '\(session.id)' exists") }
            app.sessions[session.id] = session
        }
    }

    public func session(appId: String, id: String) async throws -> StoredSession? {
        read(appId) { $0.sessions[id] }
    }

    public func deleteSession(appId: String, id: String) async throws -> Bool {
        write(appId) { $0.sessions.removeValue(forKey: id) != nil }
    }

    public func deleteExpiredSessions(appId: String, before date: Date) async throws -> Int {
        write(appId) { app in
            let expired = app.sessions.values.filter { $0.expiresAt < date }.map(\.id)
            for id in expired { app.sessions[id] = nil }
            return expired.count
        }
    }

    public func insertAPIKey(_ key: StoredAPIKey) async throws {
        try write(key.appId) { app in
            guard app.apiKeys[key.id] == nil else { throw StorageError(.duplicate, "API key '\(key.id)' exists") }
            app.apiKeys[key.id] = key
        }
    }

    public func apiKeys(appId: String, userId: String) async throws -> [StoredAPIKey] {
        read(appId) { app in
            app.apiKeys.values.filter { $0.userId == userId }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    public func apiKey(appId: String, id: String) async throws -> StoredAPIKey? {
        read(appId) { $0.apiKeys[id] }
    }

    public func deleteAPIKey(appId: String, id: String) async throws -> Bool {
        write(appId) { $0.apiKeys.removeValue(forKey: id) != nil }
    }

    public func updateAPIKey(_ key: StoredAPIKey) async throws -> Bool {
        write(key.appId) { app in
            guard app.apiKeys[key.id] != nil else { return false }
            app.apiKeys[key.id] = key
            return true
        }
    }

    // MARK: DocumentStorage: client files and settings (documents and history: MemoryStorage+Documents.swift)

    public func allocateClientFile(appId: String, userId: String) async throws -> ClientFile {
        state.withLock { state in
            let file = ClientFile(
                appId: appId, ident: state.nextFileIdent, salt: Int64.random(in: 1...Int64.max), userId: userId)
            state.nextFileIdent += 1
            state.apps[appId, default: AppState()].clientFiles[file.ident] = file
            return file
        }
    }

    public func clientFile(appId: String, ident: Int64) async throws -> ClientFile? {
        read(appId) { $0.clientFiles[ident] }
    }

    public func setting(appId: String, key: String) async throws -> Value? {
        read(appId) { $0.settings[key] }
    }

    public func updateSetting(
        appId: String, key: String, _ update: @escaping @Sendable (Value?) throws -> Value?
    ) async throws -> Value? {
        try write(appId) { state in
            guard let new = try update(state.settings[key]) else { return state.settings[key] }
            state.settings[key] = new
            return new
        }
    }

    public func setSetting(appId: String, key: String, value: Value) async throws {
        write(appId) { $0.settings[key] = value }
    }

    // MARK: AppLogStorage

    public func appendLog(_ record: LogRecord) async throws {
        write(record.appId) { $0.logs.append(record) }
    }

    public func logs(appId: String, kind: String?, since: Date?, until: Date?, limit: Int) async throws -> [LogRecord] {
        read(appId) { app in
            let matching = app.logs.filter { record in
                (kind == nil || record.kind == kind) && (since.map { record.time >= $0 } ?? true)
                    && (until.map { record.time <= $0 } ?? true)
            }
            return Array(matching.suffix(max(0, limit)))
        }
    }

    public func deleteLogs(appId: String, before date: Date) async throws -> Int {
        write(appId) { app in
            let count = app.logs.count
            app.logs.removeAll { $0.time < date }
            return count - app.logs.count
        }
    }
}

/// Per-app mutual exclusion for transactions, in arrival order.
actor AppLocks {
    private var held: Set<String> = []
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    func acquire(_ appId: String) async {
        if !held.contains(appId) {
            held.insert(appId)
            return
        }
        await withCheckedContinuation { waiters[appId, default: []].append($0) }
    }

    func release(_ appId: String) {
        if var queue = waiters[appId], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[appId] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            held.remove(appId)
        }
    }
}

extension MemoryStorage {
    func withAppLock<T: Sendable>(_ appId: String, _ body: () async throws -> T) async throws -> T {
        await locks.acquire(appId)
        do {
            let result = try await body()
            await locks.release(appId)
            return result
        } catch {
            await locks.release(appId)
            throw error
        }
    }
}
