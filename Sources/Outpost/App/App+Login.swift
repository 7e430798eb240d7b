import Foundation
import OutpostCore

extension App {
    /// Logs in with `credentials` and makes the user the ``currentUser``.
    ///
    /// As in Realm, `.anonymous` returns the logged-in anonymous user when there is one.
    ///
    /// - Throws: ``AppError`` with the server's message: `.invalidPassword` (wrong email or password, also for an
    ///   unknown email), `.authProviderNotFound` (a provider outpost-server does not support, or one the app
    ///   disabled), `.httpRequestFailed` (the server could not be reached; the message names the URL).
    public func login(credentials: Credentials) async throws -> User {
        guard let body = credentials.loginBody else {
            throw AppError(
                .authProviderNotFound,
                "outpost-server does not support the '\(credentials.provider)' auth provider; log in with "
                    + "anonymous, email/password, API key or JWT credentials")
        }
        if case .anonymous = credentials, let user = loggedInAnonymousUser() {
            return user
        }
        let provider = credentials.provider
        let answer = try await state.api.send(.POST, "auth/providers/\(provider)/login", body: body)
        guard let answer, let userId = answer.stringField("user_id"),
            let accessToken = answer.stringField("access_token"), let refreshToken = answer.stringField("refresh_token")
        else { throw AppError(.badRequest, "the server's login answer lacks user_id, access_token or refresh_token") }
        let profile = try await state.api.send(.GET, "auth/profile", bearer: accessToken)
        let userProvider = Self.provider(inProfile: profile) ?? provider
        let customData = profile?.field("custom_data") ?? .object([:])
        let profileData = profile?.field("data") ?? .object([:])
        defer {
            // Logged in again: the files of this user that are still open sync again, as in the original (logging
            // out stopped their sessions).
            SyncSessionRegistry.shared.resumeOpenFiles(userId: userId)
        }
        return state.lock.withLock {
            let user: User
            if let known = state.userLocked(id: userId) {
                user = known
            } else {
                user = User(
                    record: UserRecord(id: userId, provider: userProvider, state: .loggedIn, customData: customData),
                    app: state)
            }
            user.provider = userProvider
            user.stateLocked = .loggedIn
            user.accessTokenLocked = accessToken
            user.refreshTokenLocked = refreshToken
            user.deviceIdLocked = answer.stringField("device_id")
            user.customDataLocked = customData
            user.profileDataLocked = profileData
            user.identitiesLocked = UserIdentity.list(inProfile: profile) ?? []
            state.moveToFrontLocked(user)
            try? state.persistLocked()
            return user
        }
    }

    /// Logs in (see ``login(credentials:)``) and calls `completion` with the user or the error, on an arbitrary
    /// thread.
    @preconcurrency
    public func login(credentials: Credentials, _ completion: @escaping @Sendable (Result<User, Error>) -> Void) {
        deliver(completion) { try await self.login(credentials: credentials) }
    }

    private func loggedInAnonymousUser() -> User? {
        state.lock.withLock {
            // A user that linked another identity is no longer anonymous: `.anonymous` makes a new user (as Realm).
            guard let user = state.users.last(where: {
                $0.stateLocked == .loggedIn && $0.isAnonymousLocked
            }) else { return nil }
            state.moveToFrontLocked(user)
            try? state.persistLocked()
            return user
        }
    }

    /// The provider of the profile's first identity (an API key login acts as the key's owner).
    private static func provider(inProfile profile: JSONValue?) -> String? {
        guard case .array(let identities)? = profile?.field("identities") else { return nil }
        return identities.first?.stringField("provider_type")
    }
}
