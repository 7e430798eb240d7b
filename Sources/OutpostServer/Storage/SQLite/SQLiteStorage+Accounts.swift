import Foundation
import GRDB

/// ``AccountStorage``: users, sessions and API keys through the account tables' one code path
/// (`SQLiteStorage+AccountRecords.swift`); deleting a user and expiring sessions have statements of their own.
extension SQLiteStorage {
    // MARK: Users

    public func insertUser(_ user: StoredUser) async throws {
        try await insertRecord(user)
    }

    public func user(appId: String, id: String) async throws -> StoredUser? {
        try await record(StoredUser.self, appId: appId, where: ["id": id])
    }

    public func user(appId: String, provider: String, identity: String) async throws -> StoredUser? {
        try await record(StoredUser.self, appId: appId, where: ["provider": provider, "identity": identity])
    }

    public func updateUser(_ user: StoredUser) async throws {
        guard try await updateRecord(user) else {
            throw StorageError(.notFound, "no user with this id exists in the app")
        }
    }

    @discardableResult
    public func deleteUser(appId: String, id: String) async throws -> Bool {
        try await write("delete a user") { db in
            try db.execute(sql: "DELETE FROM sessions WHERE app = ? AND user_id = ?", arguments: [appId, id])
            try db.execute(sql: "DELETE FROM api_keys WHERE app = ? AND user_id = ?", arguments: [appId, id])
            try db.execute(sql: "DELETE FROM users WHERE app = ? AND id = ?", arguments: [appId, id])
            return db.changesCount > 0
        }
    }

    public func users(appId: String) async throws -> [StoredUser] {
        try await records(StoredUser.self, appId: appId)
    }

    // MARK: Sessions

    public func insertSession(_ session: StoredSession) async throws {
        try await insertRecord(session)
    }

    public func session(appId: String, id: String) async throws -> StoredSession? {
        try await record(StoredSession.self, appId: appId, where: ["id": id])
    }

    @discardableResult
    public func deleteSession(appId: String, id: String) async throws -> Bool {
        try await deleteRecord(StoredSession.self, appId: appId, id: id)
    }

    /// Sessions are stored through `Codable`, whose dates are seconds since 2001 (`StorageCoding`).
    public func deleteExpiredSessions(appId: String, before date: Date) async throws -> Int {
        try await write("delete expired sessions") { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE app = ? AND json_extract(body, '$.expiresAt') < ?",
                arguments: [appId, date.timeIntervalSinceReferenceDate])
            return db.changesCount
        }
    }

    // MARK: API keys

    public func insertAPIKey(_ key: StoredAPIKey) async throws {
        try await insertRecord(key)
    }

    public func apiKeys(appId: String, userId: String) async throws -> [StoredAPIKey] {
        try await records(StoredAPIKey.self, appId: appId, where: ["user_id": userId])
    }

    public func apiKey(appId: String, id: String) async throws -> StoredAPIKey? {
        try await record(StoredAPIKey.self, appId: appId, where: ["id": id])
    }

    @discardableResult
    public func deleteAPIKey(appId: String, id: String) async throws -> Bool {
        try await deleteRecord(StoredAPIKey.self, appId: appId, id: id)
    }

    @discardableResult
    public func updateAPIKey(_ key: StoredAPIKey) async throws -> Bool {
        try await updateRecord(key)
    }
}
