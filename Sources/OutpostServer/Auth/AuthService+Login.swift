import Crypto
import Foundation
import OutpostCore

extension AuthService {
    /// Logs in a new anonymous user.
    ///
    /// - Parameter clientAddress: the client's address (see ``OutpostRequestContext/clientAddress``); each login
    ///   spends one of the address's new users (``AppDefinition/Throttling/newUsersPerAddress``).
    /// - Throws: ``AuthError/Code/tooManyRequests`` when the address made too many users.
    public func loginAnonymous(clientAddress: String? = nil, linking ownerId: String? = nil) async throws -> LoginResult {
        guard app.auth.anonymousEnabled else { throw Self.disabled(Provider.anonymous) }
        try Self.refuseAnonymousLink(ownerId)
        if let clientAddress {
            try await admit([.init(limit: .newUsers, name: clientAddress)], action: "anonymous login",
                            clientAddress: clientAddress)
        }
        let id = ObjectId.generate().stringValue
        var user = StoredUser(appId: app.appId, id: id, provider: Provider.anonymous, identity: id, createdAt: clock())
        user.firstLoginAt = user.createdAt
        try await storage.insertUser(user)
        return try await startSession(for: user)
    }

    /// Logs in an email/password user.
    ///
    /// An unknown email costs the same hashing as a wrong password, so the answer's timing does not tell which
    /// emails exist. Failed attempts count against the account and the client's address; a refused attempt hashes
    /// nothing, and a success starts the account's count afresh.
    ///
    /// - Throws: ``AuthError/Code/invalidPassword`` for a wrong password or an unknown email,
    ///   ``AuthError/Code/notConfirmed`` before confirmation, ``AuthError/Code/tooManyRequests`` when throttled,
    ///   ``AuthError/Code/hashingBusy`` when too many logins wait for hashing.
    public func loginEmailPassword(email: String, password: String, clientAddress: String? = nil,
                                   linking ownerId: String? = nil) async throws -> LoginResult
    {
        guard app.auth.emailPasswordEnabled else { throw Self.disabled(Provider.emailPassword) }
        let identity = Self.normalizedEmail(email)
        let account = AuthThrottling.Key(limit: .account, name: "\(Provider.emailPassword):\(identity)")
        let keys = [account] + Self.addressKeys(clientAddress)
        try await admit(keys, action: "\(Provider.emailPassword) login of \(identity)", clientAddress: clientAddress)
        let user: StoredUser?
        let matches: Bool
        do {
            user = try await storage.user(appId: app.appId, provider: Provider.emailPassword, identity: identity)
            matches = try await passwordHasher.verifyInPool(password, against: user?.passwordHash)
        } catch {
            throttling.refund(keys, now: clock())
            throw error
        }
        guard let user, matches else { throw AuthError(.invalidPassword, "invalid username/password") }
        throttling.reset(account)
        throttling.refund(Self.addressKeys(clientAddress), now: clock())
        guard !user.disabled else { throw AuthError(.userNotFound, "the user is disabled") }
        guard user.confirmed else { throw AuthError(.notConfirmed, "the user has not confirmed their email yet") }
        return try await completeLogin(user, linking: ownerId, movable: true)
    }

    /// Logs in with a user API key: the session is the key's user's. A wrong key counts as a failed login of the
    /// client's address.
    public func loginAPIKey(_ key: String, clientAddress: String? = nil, linking ownerId: String? = nil) async throws
        -> LoginResult
    {
        guard app.auth.apiKeysEnabled else { throw Self.disabled(Provider.apiKey) }
        let keys = Self.addressKeys(clientAddress)
        try await admit(keys, action: "\(Provider.apiKey) login", clientAddress: clientAddress)
        let invalid = AuthError(.invalidAPIKey, "invalid API key")
        guard key.utf8.count == 24 + 64 else { throw invalid }
        let id = String(key.prefix(24))
        let stored: StoredAPIKey?
        do {
            stored = try await storage.apiKey(appId: app.appId, id: id)
        } catch {
            throttling.refund(keys, now: clock())
            throw error
        }
        guard let stored, !stored.disabled,
            constantTimeEquals(Array(stored.keyHash.utf8), Array(Self.apiKeyHash(key).utf8))
        else { throw invalid }
        throttling.refund(keys, now: clock())
        guard let user = try await storage.user(appId: app.appId, id: stored.userId), !user.disabled else {
            throw AuthError(.userNotFound, "the API key's user does not exist or is disabled")
        }
        return try await completeLogin(user, linking: ownerId, movable: false)
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

extension AuthService {
    /// Logs in with a JWT of the app's own identity provider (`custom-token`, App Services' Custom JWT
    /// authentication): the token is checked (``CustomTokenVerifier``), its `sub` names the user — created at the
    /// first login, the same user afterwards — and its metadata fields are stored in the user's profile data.
    ///
    /// - Throws: ``AuthError`` with `providerDisabled`, `invalidToken`, `invalidSignature`, `expiredToken`,
    ///   `userNotFound` for a disabled user, or `signingKeysUnavailable` when the keys of a `jwk_uri` cannot be had.
    public func loginCustomToken(_ token: String, linking ownerId: String? = nil) async throws -> LoginResult {
        guard let settings = app.auth.customToken else { throw Self.disabled(Provider.customToken) }
        let verifier = CustomTokenVerifier(settings: settings)
        let verified: CustomTokenVerifier.Verified
        if let jwkSource {
            let parsed = try verifier.parse(token)
            let keys = try await jwkSource.keys(for: parsed.keyId, now: clock())
            verified = try verifier.verify(parsed, now: clock(), rsaKeys: keys)
        } else {
            verified = try verifier.verify(token, now: clock())
        }
        if let user = try await storage.user(appId: app.appId, provider: Provider.customToken, identity: verified.subject) {
            return try await completeLogin(try await withMetadata(user, verified.metadata), linking: ownerId, movable: false)
        }
        var user = StoredUser(
            appId: app.appId, id: ObjectId.generate().stringValue, provider: Provider.customToken,
            identity: verified.subject, data: verified.metadata, createdAt: clock())
        // A subject seen first in a link joins the linking user; otherwise it is a new user, logged in now.
        if ownerId == nil { user.firstLoginAt = user.createdAt }
        do {
            try await storage.insertUser(user)
            await log("info", "created custom-token user \(user.id)")
            return try await completeLogin(user, linking: ownerId, movable: true)
        } catch StorageError.Code.duplicate {
            // Two first logins at once: the other one created the user.
            guard let existing = try await storage.user(appId: app.appId, provider: Provider.customToken,
                                                        identity: verified.subject)
            else { throw AuthError(.userNotFound, "the custom-token user could not be created") }
            return try await completeLogin(try await withMetadata(existing, verified.metadata), linking: ownerId,
                                           movable: false)
        }
    }

    /// The user, enabled, with the token's metadata fields in its profile data (stored when they changed).
    private func withMetadata(_ user: StoredUser, _ metadata: Document) async throws -> StoredUser {
        guard !user.disabled else { throw AuthError(.userNotFound, "the user is disabled") }
        var updated = user
        for (key, value) in metadata.fields { updated.data[key] = value }
        if updated.data != user.data { try await storage.updateUser(updated) }
        return updated
    }
}
