import Foundation

extension User {
    /// Logs the user out: ends the session on the server, forgets the tokens, stops the user's sync sessions.
    ///
    /// The user stays in ``App/allUsers`` with ``isLoggedIn`` false; an anonymous user is removed instead (its
    /// files deleted), as in Realm. Logging out a logged-out user does nothing. The local logout happens even when
    /// the server cannot be reached; the error is then still thrown, as Realm reports it.
    public func logOut() async throws {
        let anonymous = appState.lock.withLock { isAnonymousLocked }
        try await endSession(finalState: anonymous ? .removed : .loggedOut, requireKnown: false)
    }

    /// Logs the user out (see ``logOut()``) and calls `completion` with nil or the error, on an arbitrary thread.
    @preconcurrency
    public func logOut(completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.logOut() }
    }

    /// Logs the user out if needed and removes them from this device: from ``App/allUsers``, the metadata file,
    /// and their directory of synced files. The user still exists on the server.
    ///
    /// - Throws: ``AppError`` `.userNotFound` when the user was already removed.
    public func remove() async throws {
        try await endSession(finalState: .removed, requireKnown: true)
    }

    /// Removes the user (see ``remove()``) and calls `completion` with nil or the error, on an arbitrary thread.
    @preconcurrency
    public func remove(completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.remove() }
    }

    /// Fetches the user's custom data from the server (`GET …/auth/profile`), keeps it as ``customData`` and
    /// returns it with plain Swift values (`String`, `Int64`, `Double`, `Bool`, `Date`, `ObjectId`, arrays,
    /// dictionaries, `NSNull`), as Realm's `[AnyHashable: Any]`.
    public func refreshCustomData() async throws -> [AnyHashable: Any] {
        let profile = try await authorizedRequest(.GET, "auth/profile")
        let customData = profile?.field("custom_data") ?? .object([:])
        let profileData = profile?.field("data")
        appState.lock.withLock {
            customDataLocked = customData
            if let profileData { profileDataLocked = profileData }
            if let identities = UserIdentity.list(inProfile: profile) { identitiesLocked = identities }
            try? appState.persistLocked()
        }
        return Self.plain(self.customData)
    }

    /// Refreshes the custom data (see ``refreshCustomData()``) and calls `completion` on an arbitrary thread.
    @preconcurrency
    public func refreshCustomData(_ completion: @escaping @Sendable (Result<[AnyHashable: Any], Error>) -> Void) {
        Task {
            do {
                completion(.success(try await refreshCustomData()))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Ends the session: local state first, then the server's session (with the refresh token), then files.
    private func endSession(finalState: State, requireKnown: Bool) async throws {
        let (refreshToken, wasKnown) = appState.lock.withLock { () -> (String?, Bool) in
            let known = stateLocked != .removed
            guard known else { return (nil, false) }
            let token = stateLocked == .loggedIn ? refreshTokenLocked : nil
            if stateLocked == .loggedIn || finalState == .removed {
                stateLocked = finalState
                refreshTokenLocked = nil
                accessTokenLocked = nil
                refreshTask = nil
                if finalState == .removed { appState.forgetLocked(self) }
                try? appState.persistLocked()
            }
            return (token, true)
        }
        guard wasKnown else {
            if requireKnown { throw AppError(.userNotFound, "user \(id) has already been removed from this device") }
            return
        }
        await appState.syncManager.userDidLogOut(userId: id)
        if finalState == .removed {
            try? FileManager.default.removeItem(at: appState.appDirectory.appendingPathComponent(id, isDirectory: true))
        }
        if let refreshToken {
            _ = try await appState.api.send(.DELETE, "auth/session", bearer: refreshToken)
        }
    }

    private static func plain(_ document: Document) -> [AnyHashable: Any] {
        var out: [AnyHashable: Any] = [:]
        for (key, value) in document { out[key] = plain(value) }
        return out
    }

    private static func plain(_ value: AnyBSON?) -> Any {
        switch value {
        case nil, .null?: NSNull()
        case .document(let d)?: plain(d)
        case .array(let items)?: items.map { plain($0) }
        case .string(let v)?: v
        case .int64(let v)?: v
        case .int32(let v)?: v
        case .double(let v)?: v
        case .bool(let v)?: v
        case .datetime(let v)?, .timestamp(let v)?: v
        case .objectId(let v)?: v
        case .decimal128(let v)?: v
        case .uuid(let v)?: v
        case .binary(let v)?: v
        case .regex(let v)?: v
        case .minKey?, .maxKey?: NSNull()
        }
    }
}

/// The auth provider names of outpost-server's URLs.
enum AuthProvider {
    static let anonymous = "anon-user"
    static let emailPassword = "local-userpass"
    static let apiKey = "api-key"
}
