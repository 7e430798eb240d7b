import Foundation

extension User {
    /// The user's identities, one per provider it logged in with or linked, as of login, the last
    /// ``refreshCustomData()`` or ``linkUser(credentials:)``.
    public var identities: [UserIdentity] { appState.lock.withLock { identitiesLocked } }

    /// Links the identity of `credentials` to this user: logging in with them afterwards logs in as this user (an
    /// anonymous user keeps its data by linking email/password or JWT credentials). Returns this user, with the new
    /// identity in ``identities``, and makes it the app's current user.
    ///
    /// - Throws: ``AppError``: `.invalidSession` ("a user already exists with the specified provider") when the
    ///   identity belongs to another user; `.badRequest` (400) for a second email/password identity or anonymous
    ///   credentials the server refuses; the login's own
    ///   errors for wrong credentials; `.unknown` with Realm's texts when this user is not logged in or the
    ///   credentials are anonymous (checked before any request).
    public func linkUser(credentials: Credentials) async throws -> User {
        guard isLoggedIn else { throw AppError(.unknown, "The specified user is not logged in.") }
        if case .anonymous = credentials {
            throw AppError(.unknown, "Cannot add anonymous credentials to an existing user.")
        }
        guard let body = credentials.loginBody else {
            throw AppError(.authProviderNotFound,
                           "outpost-server does not support the '\(credentials.provider)' auth provider")
        }
        // The current access token, refreshed first when it is about to expire (the link request itself is not
        // retried after a refresh, as in the original).
        let token = try await accessToken()
        let answer = try await appState.api.send(
            .POST, "auth/providers/\(credentials.provider)/login?link=true", body: body, bearer: token)
        guard let accessToken = answer?.stringField("access_token") else {
            throw AppError(.badRequest, "Could not log in user: received malformed JWT")
        }
        appState.lock.withLock {
            accessTokenLocked = accessToken
            try? appState.persistLocked()
        }
        _ = try await refreshCustomData()  // the profile: identities, data
        app.switch(to: self)
        return self
    }

    /// Whether the user has only an anonymous identity (one that linked another is kept at log-out, and an
    /// anonymous login no longer returns it, as in Realm).
    var isAnonymousLocked: Bool {
        provider == AuthProvider.anonymous && identitiesLocked.allSatisfy { $0.providerType == AuthProvider.anonymous }
    }

    /// Links `credentials` (see ``linkUser(credentials:)``) and calls `completion` with this user or the error, on an
    /// arbitrary thread.
    @preconcurrency
    public func linkUser(credentials: Credentials, _ completion: @escaping @Sendable (Result<User, Error>) -> Void) {
        deliver(completion) { try await self.linkUser(credentials: credentials) }
    }
}
