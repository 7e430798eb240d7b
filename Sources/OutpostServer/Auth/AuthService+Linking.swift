import Foundation

/// Identity linking (`User.linkUser(credentials:)`): a login with `?link=true` and the user's access token adds the
/// credentials' identity to that user instead of logging in as the identity's own user. docs/server.md, "Linking
/// identities".
///
/// An identity is a row of `users`; a linked one keeps its provider's data (the password hash, the JWT's subject)
/// and names the user it now acts for (``StoredUser/linkedTo``), and that user lists it
/// (``StoredUser/linkedIdentities``). Logins with it start sessions of that user.
extension AuthService {
    /// Ends a login: a session for the user `identity` acts for, or — when `ownerId` names the linking user — the
    /// identity linked to that user, answered with a new access token of it (no new session: the client keeps its
    /// refresh token).
    ///
    /// - Parameter movable: whether the identity may join another user: an email/password identity, or a JWT
    ///   subject seen for the first time, that never logged in on its own. An API key is its user's only.
    func completeLogin(_ identity: StoredUser, linking ownerId: String?, movable: Bool) async throws -> LoginResult {
        guard let ownerId else { return try await startSession(forIdentity: identity) }
        return try await link(identity, to: ownerId, movable: movable)
    }

    /// A session for the user `identity` acts for (itself, or the user it is linked to); the identity's first login
    /// is recorded (from then on it cannot be linked to another user).
    private func startSession(forIdentity identity: StoredUser) async throws -> LoginResult {
        if identity.firstLoginAt == nil {
            var first = identity
            first.firstLoginAt = clock()
            try await storage.updateUser(first)
        }
        guard let ownerId = identity.linkedTo else { return try await startSession(for: identity) }
        guard let owner = try await storage.user(appId: app.appId, id: ownerId), !owner.disabled else {
            throw AuthError(.userNotFound, "the user this identity is linked to does not exist or is disabled")
        }
        return try await startSession(for: owner)
    }

    private func link(_ identity: StoredUser, to ownerId: String, movable: Bool) async throws -> LoginResult {
        guard var owner = try await storage.user(appId: app.appId, id: ownerId), !owner.disabled, owner.linkedTo == nil
        else { throw AuthError(.userNotFound, "the linking user does not exist or is disabled") }
        let isOwners = identity.id == owner.id || identity.linkedTo == owner.id
        if !isOwners {
            guard movable, identity.linkedTo == nil, identity.firstLoginAt == nil,
                  (identity.linkedIdentities ?? []).isEmpty
            else { throw AuthError(.identityInUse, "a user already exists with the specified provider") }
            let providers = [owner.provider] + (owner.linkedIdentities ?? []).map(\.provider)
            if identity.provider == Provider.emailPassword, providers.contains(Provider.emailPassword) {
                throw AuthError(.linkNotAllowed,
                                "linking a local-userpass identity is not allowed when one is already linked")
            }
            var linked = identity
            linked.linkedTo = owner.id
            try await storage.updateUser(linked)
        }
        // Listed after the identity names its user: a crash between the two writes leaves a link that logs in
        // correctly, and linking again (the same credentials) lists it.
        if identity.id != owner.id, !(owner.linkedIdentities ?? []).contains(where: { $0.rowId == identity.id }) {
            owner.linkedIdentities = (owner.linkedIdentities ?? [])
                + [StoredUser.LinkedIdentity(rowId: identity.id, provider: identity.provider, identity: identity.identity)]
            try await storage.updateUser(owner)
            await log("info", "linked the \(identity.provider) identity of user row \(identity.id) to user \(owner.id)")
        }
        return LoginResult(accessToken: accessToken(for: owner), refreshToken: "", userId: owner.id, deviceId: "")
    }

    /// Refuses a link of anonymous credentials (App Services' text), before any user is made.
    static func refuseAnonymousLink(_ ownerId: String?) throws {
        if ownerId != nil { throw AuthError(.linkNotAllowed, "linking an anonymous identity is not allowed") }
    }
}
