import Crypto
import Foundation
import Logging
import OutpostCore

/// Users, logins, tokens and API keys of one app, over a ``ServerStorage``.
///
/// The HTTP routes are a thin shell over it; the sync engine and the Data API use
/// ``authenticate(accessToken:)`` to turn a bearer token into an ``AuthenticatedUser``.
public struct AuthService: Sendable {
    public let app: AppDefinition
    public let storage: any ServerStorage
    public let signer: TokenSigner
    public let passwordHasher: PasswordHasher
    /// The time used for issuing and checking tokens (injected so tests need not sleep).
    public let clock: @Sendable () -> Date
    let logger: Logger
    /// The custom-token provider's keys from its `jwk_uri`, shared by the copies of this service.
    let jwkSource: JSONWebKeySource?
    /// Failed logins and new users counted per account and client address, shared by the copies of this service.
    let throttling: AuthThrottling

    public init(
        app: AppDefinition, storage: any ServerStorage, signingKey: SymmetricKey,
        passwordHasher: PasswordHasher = PasswordHasher(), clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "outpost.auth")
    ) {
        self.app = app
        self.storage = storage
        self.signer = TokenSigner(key: signingKey)
        self.passwordHasher = passwordHasher
        self.clock = clock
        self.logger = logger
        self.throttling = AuthThrottling(app.auth.throttling)
        if let settings = app.auth.customToken, settings.algorithm == .rs256,
            let url = settings.jwkURI.flatMap(URL.init(string:))
        {
            let (appId, storage) = (app.appId, storage)
            self.jwkSource = JSONWebKeySource(url: url) { level, message in
                await Self.appendLog(appId: appId, storage: storage, time: clock(), level: level, message: message,
                                     details: nil, logger: logger)
            }
        } else {
            self.jwkSource = nil
        }
    }

    /// The auth provider names, as in App Services' URLs and in ``StoredUser/provider``.
    public enum Provider {
        public static let anonymous = "anon-user"
        public static let emailPassword = "local-userpass"
        public static let apiKey = "api-key"
        public static let customToken = "custom-token"
    }

    /// What a successful login returns.
    public struct LoginResult: Sendable, Hashable {
        public var accessToken: String
        public var refreshToken: String
        public var userId: String
        public var deviceId: String
    }

    // MARK: Tokens

    /// The user an access token acts for, with their current profile and custom data from storage.
    ///
    /// - Throws: ``AuthError`` (`invalidToken`, `invalidSignature`, `wrongApp`, `expiredToken`, `userNotFound`).
    public func authenticate(accessToken: String) async throws -> AuthenticatedUser {
        let claims = try signer.verify(accessToken, kind: .access, appId: app.appId, now: clock())
        let user = try await activeUser(claims.userId)
        return AuthenticatedUser(appId: app.appId, userId: user.id, data: user.data, customData: user.customData)
    }

    /// A new access token for the session of a refresh token.
    public func refreshAccessToken(refreshToken: String) async throws -> String {
        let (_, user) = try await session(refreshToken: refreshToken)
        return accessToken(for: user)
    }

    /// Ends the session of a refresh token (its refresh token stops working; access tokens run out on their own).
    public func logout(refreshToken: String) async throws {
        let (claims, _) = try await session(refreshToken: refreshToken)
        try await storage.deleteSession(appId: app.appId, id: claims.sessionId ?? "")
    }

    /// The user of a valid refresh token whose session still exists.
    public func user(refreshToken: String) async throws -> StoredUser {
        try await session(refreshToken: refreshToken).user
    }

    /// The user of a valid access or refresh token (the API key endpoints take either).
    public func user(accessOrRefreshToken token: String) async throws -> StoredUser {
        do {
            return try await user(refreshToken: token)
        } catch let error as AuthError where error.code == .invalidToken {
            let claims = try signer.verify(token, kind: .access, appId: app.appId, now: clock())
            return try await activeUser(claims.userId)
        }
    }

    private func session(refreshToken: String) async throws -> (claims: TokenClaims, user: StoredUser) {
        let now = clock()
        let claims = try signer.verify(refreshToken, kind: .refresh, appId: app.appId, now: now)
        guard let sessionId = claims.sessionId,
            let session = try await storage.session(appId: app.appId, id: sessionId), session.userId == claims.userId
        else { throw AuthError(.invalidToken, "the refresh token's session has ended") }
        guard session.expiresAt > now else { throw AuthError(.expiredToken, "the session expired") }
        return (claims, try await activeUser(claims.userId))
    }

    private func activeUser(_ userId: String) async throws -> StoredUser {
        guard let user = try await storage.user(appId: app.appId, id: userId), !user.disabled else {
            throw AuthError(.userNotFound, "the token's user does not exist or is disabled")
        }
        return user
    }

    func accessToken(for user: StoredUser) -> String {
        let now = clock()
        return signer.sign(
            TokenClaims(
                userId: user.id, appId: app.appId, kind: .access, issuedAt: now,
                expiresAt: now.addingTimeInterval(TimeInterval(app.auth.accessTokenLifetimeSeconds)), userData: user.data))
    }

    /// Starts a session for `user`: stores it and returns both tokens.
    func startSession(for user: StoredUser) async throws -> LoginResult {
        let now = clock()
        let expiry = now.addingTimeInterval(TimeInterval(app.auth.refreshTokenLifetimeDays) * 86_400)
        let session = StoredSession(
            appId: app.appId, id: ObjectId.generate().stringValue, userId: user.id, createdAt: now, expiresAt: expiry)
        try await storage.insertSession(session)
        let refresh = signer.sign(
            TokenClaims(
                userId: user.id, appId: app.appId, kind: .refresh, issuedAt: now, expiresAt: expiry,
                sessionId: session.id))
        return LoginResult(
            accessToken: accessToken(for: user), refreshToken: refresh, userId: user.id,
            deviceId: ObjectId.generate().stringValue)
    }

    func log(_ level: String, _ message: String, details: Value? = nil) async {
        await Self.appendLog(appId: app.appId, storage: storage, time: clock(), level: level, message: message,
                             details: details, logger: logger)
    }

    /// Writes an `auth` record to the app's server log (and the process's log).
    static func appendLog(appId: String, storage: any AppLogStorage, time: Date, level: String, message: String,
                          details: Value?, logger: Logger) async {
        if level == "error" {
            logger.error("\(message)", metadata: ["app": "\(appId)"])
        } else {
            logger.info("\(message)", metadata: ["app": "\(appId)"])
        }
        do {
            try await storage.appendLog(
                LogRecord(appId: appId, time: time, kind: "auth", level: level, message: message, details: details))
        } catch {
            logger.error("cannot append to the server log: \(error)")
        }
    }
}
