import Foundation
import OutpostCore

extension AuthService {
    /// A new API key for a user. The returned `key` is shown once: only its hash is stored.
    public func createAPIKey(userId: String, name: String) async throws -> (stored: StoredAPIKey, key: String) {
        guard app.auth.apiKeysEnabled else { throw Self.disabled(Provider.apiKey) }
        let id = ObjectId.generate().stringValue
        let key = id + AuthRandom.hex(32)
        let stored = StoredAPIKey(
            appId: app.appId, id: id, userId: userId, name: name, keyHash: Self.apiKeyHash(key), createdAt: clock())
        try await storage.insertAPIKey(stored)
        return (stored, key)
    }

    /// A user's API keys (without their secrets).
    public func apiKeys(userId: String) async throws -> [StoredAPIKey] {
        try await storage.apiKeys(appId: app.appId, userId: userId).sorted { $0.createdAt < $1.createdAt }
    }

    /// Enables or disables one of a user's API keys (a disabled key cannot log in); false when the user has no key
    /// with that id.
    public func setAPIKey(userId: String, id: String, disabled: Bool) async throws -> Bool {
        guard var key = try await storage.apiKey(appId: app.appId, id: id), key.userId == userId else { return false }
        key.disabled = disabled
        return try await storage.updateAPIKey(key)
    }

    /// Deletes one of a user's API keys; false when the user has no key with that id.
    public func deleteAPIKey(userId: String, id: String) async throws -> Bool {
        guard let key = try await storage.apiKey(appId: app.appId, id: id), key.userId == userId else { return false }
        return try await storage.deleteAPIKey(appId: app.appId, id: id)
    }
}
