import Foundation

/// The accounts of each app: users, their refresh-token sessions and their API keys.
///
/// Its own protocol because it is the auth service's whole world, and because its records share one shape: a row
/// per record keyed by app and id, with the whole record as JSON (the SQL drivers store all three through one
/// code path, `AccountRecord`). Part of ``ServerStorage``; every method is safe to call from many tasks at once.
public protocol AccountStorage: Sendable {
    // MARK: Users

    /// Stores a new user. Throws ``StorageError/Code/duplicate`` when the id or (provider, identity) exists.
    func insertUser(_ user: StoredUser) async throws
    func user(appId: String, id: String) async throws -> StoredUser?
    func user(appId: String, provider: String, identity: String) async throws -> StoredUser?
    /// Replaces a stored user (matched by app and id). Throws ``StorageError/Code/notFound`` when missing.
    func updateUser(_ user: StoredUser) async throws
    /// Deletes a user with their sessions and API keys; returns whether the user existed.
    @discardableResult func deleteUser(appId: String, id: String) async throws -> Bool
    func users(appId: String) async throws -> [StoredUser]

    // MARK: Sessions

    func insertSession(_ session: StoredSession) async throws
    func session(appId: String, id: String) async throws -> StoredSession?
    @discardableResult func deleteSession(appId: String, id: String) async throws -> Bool

    /// Deletes the app's refresh-token sessions that expired before `date` (``Housekeeping``); returns how many.
    /// Expired sessions are refused anyway; this keeps every login from staying in the database for ever.
    @discardableResult func deleteExpiredSessions(appId: String, before date: Date) async throws -> Int

    // MARK: API keys

    func insertAPIKey(_ key: StoredAPIKey) async throws
    func apiKeys(appId: String, userId: String) async throws -> [StoredAPIKey]
    func apiKey(appId: String, id: String) async throws -> StoredAPIKey?
    @discardableResult func deleteAPIKey(appId: String, id: String) async throws -> Bool
    /// Replaces a stored API key (same app and id) in place; false when there is none.
    @discardableResult func updateAPIKey(_ key: StoredAPIKey) async throws -> Bool
}
