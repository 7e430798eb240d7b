import Foundation
import OutpostCore

extension AuthService {
    /// How long a password reset token is accepted (App Services: 30 minutes).
    public static let resetTokenLifetime: TimeInterval = 30 * 60

    /// Issues a password reset token for an email/password user and writes it to the server log (kind `auth`),
    /// since the server has no mail transport; the user resets with it through ``resetPassword(token:tokenId:password:)``.
    /// A new request replaces the previous token. An unknown, unconfirmed or disabled email gets the same answer and
    /// no token, so the request does not tell which emails exist.
    ///
    /// Each request spends one of the client address's new users (``AppDefinition/Throttling/newUsersPerAddress``):
    /// it writes a token and a log line, as a registration does.
    ///
    /// - Throws: ``AuthError`` with `providerDisabled` or `tooManyRequests`.
    public func sendPasswordReset(email: String, clientAddress: String? = nil) async throws {
        guard app.auth.emailPasswordEnabled else { throw Self.disabled(Provider.emailPassword) }
        let identity = Self.normalizedEmail(email)
        try await admitTokenRequest("password reset request for \(identity)", clientAddress: clientAddress)
        guard var user = try await storage.user(appId: app.appId, provider: Provider.emailPassword, identity: identity),
            user.confirmed, !user.disabled
        else { return }
        let token = AuthRandom.hex(32)
        user.resetToken = Self.confirmationHash(token)
        user.resetExpiresAt = clock().addingTimeInterval(Self.resetTokenLifetime)
        try await storage.updateUser(user)
        await deliverToken("reset", email: identity, token: token, tokenId: user.id)
    }

    /// Sets a new password with the token and token id of a password reset; the token is used up.
    ///
    /// - Throws: ``AuthError`` with `providerDisabled`, `passwordTooShort`, `invalidResetToken` (wrong, used or
    ///   expired token) or `hashingBusy`.
    public func resetPassword(token: String, tokenId: String, password: String) async throws {
        guard app.auth.emailPasswordEnabled else { throw Self.disabled(Provider.emailPassword) }
        guard Self.passwordLengths.contains(password.count) else {
            throw AuthError(
                .passwordTooShort,
                "the password must have between \(Self.passwordLengths.lowerBound) and \(Self.passwordLengths.upperBound) characters")
        }
        let refused = AuthError(.invalidResetToken, "the password reset token is wrong, used or expired")
        guard var user = try await storage.user(appId: app.appId, id: tokenId), user.provider == Provider.emailPassword,
            let expected = user.resetToken, let expiry = user.resetExpiresAt, clock() < expiry,
            constantTimeEquals(Array(expected.utf8), Array(Self.confirmationHash(token).utf8))
        else { throw refused }
        user.passwordHash = try await passwordHasher.hashInPool(password)
        user.resetToken = nil
        user.resetExpiresAt = nil
        try await storage.updateUser(user)
        await log("info", "password reset done for \(user.identity) (user \(user.id))")
    }

    /// Issues a new confirmation token for an unconfirmed email/password user and writes it to the server log, as
    /// registration did. A confirmed or unknown email gets the same answer and no token.
    ///
    /// - Throws: ``AuthError`` with `providerDisabled` or `tooManyRequests`.
    public func resendConfirmation(email: String, clientAddress: String? = nil) async throws {
        guard app.auth.emailPasswordEnabled else { throw Self.disabled(Provider.emailPassword) }
        let identity = Self.normalizedEmail(email)
        try await admitTokenRequest("confirmation request for \(identity)", clientAddress: clientAddress)
        guard var user = try await storage.user(appId: app.appId, provider: Provider.emailPassword, identity: identity),
            !user.confirmed
        else { return }
        let token = AuthRandom.hex(32)
        user.confirmationToken = Self.confirmationHash(token)
        try await storage.updateUser(user)
        await deliverToken("confirmation", email: identity, token: token, tokenId: user.id)
    }

    /// A request that runs the app's custom confirmation or password reset function: outpost-server runs none yet.
    ///
    /// - Throws: ``AuthError`` `functionNotConfigured` (404 `FunctionNotFound`), or `providerDisabled`.
    public func callFunction(_ purpose: String) throws -> Never {
        guard app.auth.emailPasswordEnabled else { throw Self.disabled(Provider.emailPassword) }
        throw AuthError(
            .functionNotConfigured,
            "the app runs no \(purpose) function; outpost-server logs the token instead (use the non-function request)")
    }

    private func admitTokenRequest(_ action: String, clientAddress: String?) async throws {
        guard let clientAddress else { return }
        try await admit([.init(limit: .newUsers, name: clientAddress)], action: action, clientAddress: clientAddress)
    }
}
