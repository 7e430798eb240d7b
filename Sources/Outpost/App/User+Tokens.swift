import Foundation
import OutpostCore

extension User {
    /// How long before its expiry an access token is refreshed.
    static let refreshMargin: TimeInterval = 30

    /// A valid access token, refreshed first when it expires within 30 s (read from the JWT's `exp`), or when
    /// `forceRefresh`.
    ///
    /// Concurrent callers share one refresh. When the server refuses the refresh token (the session ended or
    /// expired), the user is logged out, as in Realm.
    ///
    /// - Throws: ``AppError`` `.invalidSession` when the user is not logged in or the session ended; the
    ///   request's error when the server cannot be reached.
    func accessToken(forceRefresh: Bool = false) async throws -> String {
        let task: Task<String, any Error> = try appState.lock.withLock {
            guard stateLocked == .loggedIn, let refreshToken = refreshTokenLocked else {
                throw AppError(.invalidSession, "user \(id) is not logged in")
            }
            if !forceRefresh, let token = accessTokenLocked, let expiry = AccessTokenClaims.expiry(of: token),
                expiry.timeIntervalSinceNow > Self.refreshMargin
            {
                return Task { token }
            }
            if let running = refreshTask { return running }
            let task = Task { try await self.refreshAccessToken(refreshToken: refreshToken) }
            refreshTask = task
            return task
        }
        return try await task.value
    }

    /// `<rootDirectory>/<appId>/<userId>/` (created on demand). Synced Realm files go here.
    var syncDirectory: URL {
        let url = appState.appDirectory.appendingPathComponent(id, isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Asks the server for a new access token (`POST …/auth/session` with the refresh token) and keeps it.
    private func refreshAccessToken(refreshToken: String) async throws -> String {
        defer { appState.lock.withLock { refreshTask = nil } }
        do {
            let answer = try await appState.api.send(.POST, "auth/session", bearer: refreshToken)
            guard let token = answer?.stringField("access_token") else {
                throw AppError(.badRequest, "the server's answer to a token refresh has no access_token")
            }
            try appState.lock.withLock {
                guard stateLocked == .loggedIn, refreshTokenLocked == refreshToken else {
                    throw AppError(.invalidSession, "user \(id) logged out while its access token was refreshed")
                }
                accessTokenLocked = token
                try? appState.persistLocked()
            }
            return token
        } catch let error as AppError where error.httpStatusCode == 401 {
            // The refresh token is no longer accepted: the session is over, as Realm treats it.
            markLoggedOut(ifRefreshToken: refreshToken)
            throw error
        }
    }

    /// Logs the user out locally after the server refused its refresh token.
    private func markLoggedOut(ifRefreshToken refreshToken: String) {
        let changed = appState.lock.withLock {
            guard stateLocked == .loggedIn, refreshTokenLocked == refreshToken else { return false }
            stateLocked = .loggedOut
            refreshTokenLocked = nil
            accessTokenLocked = nil
            try? appState.persistLocked()
            return true
        }
        if changed {
            let manager = appState.syncManager
            let id = self.id
            Task { await manager.userDidLogOut(userId: id) }
        }
    }

    /// Sends a request with the user's access token; on a 401 it refreshes the token once and retries.
    func authorizedRequest(_ method: RLMHTTPMethod, _ endpoint: String, body: JSONValue? = nil) async throws
        -> JSONValue?
    {
        try await authorizedRequest(method, endpoint, bodyText: body?.text)
    }

    /// ``authorizedRequest(_:_:body:)`` with a JSON body already written.
    func authorizedRequest(_ method: RLMHTTPMethod, _ endpoint: String, bodyText: String?) async throws
        -> JSONValue?
    {
        let token = try await accessToken()
        do {
            return try await appState.api.send(method, endpoint, bodyText: bodyText, bearer: token)
        } catch where error.httpStatusCode == 401 {
            let fresh = try await accessToken(forceRefresh: true)
            return try await appState.api.send(method, endpoint, bodyText: bodyText, bearer: fresh)
        }
    }
}
