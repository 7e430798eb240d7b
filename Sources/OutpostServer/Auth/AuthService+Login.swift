import Crypto
import Foundation
import OutpostCore

extension AuthService {
    /// Logs in a new anonymous user.
    public func loginAnonymous() async throws -> LoginResult {
        guard app.auth.anonymousEnabled else { throw Self.disabled(Provider.anonymous) }
        let id = ObjectId.generate().stringValue
        let user = StoredUser(appId: app.appId, id: id, provider: Provider.anonymous, identity: id, createdAt: clock())
        try await storage.insertUser(user)
        return try await startSession(for: user)
    }

    /// Logs in an email/password user.
    ///
    /// - Throws: ``AuthError/Code/invalidPassword`` for a wrong password or an unknown email,
    ///   ``AuthError/Code/notConfirmed`` before confirmation.
    public func loginEmailPassword(email: String, password: String) async throws -> LoginResult {
        guard app.auth.emailPasswordEnabled else { throw Self.disabled(Provider.emailPassword) }
        let identity = Self.normalizedEmail(email)
        guard let user = try await storage.user(appId: app.appId, provider: Provider.emailPassword, identity: identity),
            let hash = user.passwordHash, passwordHasher.verify(password, against: hash)
        else { throw AuthError(.invalidPassword, "invalid username/password") }
        guard !user.disabled else { throw AuthError(.userNotFound, "the user is disabled") }
        guard user.confirmed else { throw AuthError(.notConfirmed, "the user has not confirmed their email yet") }
        return try await startSession(for: user)
    }

    /// Logs in with a user API key: the session is the key's user's.
    public func loginAPIKey(_ key: String) async throws -> LoginResult {
        guard app.auth.apiKeysEnabled else { throw Self.disabled(Provider.apiKey) }
        let invalid = AuthError(.invalidAPIKey, "invalid API key")
        guard key.utf8.count == 24 + 64 else { throw invalid }
        let id = String(key.prefix(24))
        guard let stored = try await storage.apiKey(appId: app.appId, id: id), !stored.disabled,
            constantTimeEquals(Array(stored.keyHash.utf8), Array(Self.apiKeyHash(key).utf8))
        else { throw invalid }
        guard let user = try await storage.user(appId: app.appId, id: stored.userId), !user.disabled else {
            throw AuthError(.userNotFound, "the API key's user does not exist or is disabled")
        }
        return try await startSession(for: user)
    }

    static func disabled(_ provider: String) -> AuthError {
        AuthError(.providerDisabled, "the auth provider '\(provider)' is not enabled for this app")
    }

    static func normalizedEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespaces).lowercased()
    }

    static func apiKeyHash(_ key: String) -> String {
        "sha256$" + SHA256.hash(data: Array(key.utf8)).hexString
    }
}
