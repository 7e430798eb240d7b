import Crypto
import Foundation
import OutpostCore

extension AuthService {
    /// The shortest and longest passwords App Services accepts.
    public static let passwordLengths = 6...128

    /// Registers an email/password user. With `auto_confirm` off, the user is unconfirmed and a confirmation token
    /// is written to the server log (kind `auth`), since the server has no mail transport.
    ///
    /// Each registration (also a refused one) spends one of the client address's new users
    /// (``AppDefinition/Throttling/newUsersPerAddress``): it costs a password hash and may store a user.
    ///
    /// - Throws: ``AuthError`` with `providerDisabled`, `invalidEmail`, `passwordTooShort`, `userExists`,
    ///   `tooManyRequests` or `hashingBusy`.
    @discardableResult
    public func register(email: String, password: String, clientAddress: String? = nil) async throws -> StoredUser {
        guard app.auth.emailPasswordEnabled else { throw Self.disabled(Provider.emailPassword) }
        if let clientAddress {
            try await admit([.init(limit: .newUsers, name: clientAddress)], action: "registration",
                            clientAddress: clientAddress)
        }
        let identity = Self.normalizedEmail(email)
        guard Self.isValidEmail(identity) else { throw AuthError(.invalidEmail, "'\(email)' is not an email address") }
        guard Self.passwordLengths.contains(password.count) else {
            throw AuthError(
                .passwordTooShort,
                "the password must have between \(Self.passwordLengths.lowerBound) and \(Self.passwordLengths.upperBound) characters")
        }
        if try await storage.user(appId: app.appId, provider: Provider.emailPassword, identity: identity) != nil {
            throw AuthError(.userExists, "a user with this email exists")
        }
        let autoConfirm = app.auth.emailPasswordAutoConfirm
        let token = AuthRandom.hex(32)
        let passwordHash = try await passwordHasher.hashInPool(password)
        let user = StoredUser(
            appId: app.appId, id: ObjectId.generate().stringValue, provider: Provider.emailPassword, identity: identity,
            passwordHash: passwordHash, confirmed: autoConfirm,
            confirmationToken: autoConfirm ? nil : Self.confirmationHash(token), data: ["email": .string(identity)],
            createdAt: clock())
        do {
            try await storage.insertUser(user)
        } catch StorageError.Code.duplicate {
            throw AuthError(.userExists, "a user with this email exists")
        }
        if autoConfirm {
            await log("info", "registered \(identity) (user \(user.id))")
        } else {
            await deliverToken("confirmation", email: identity, token: token, tokenId: user.id)
        }
        return user
    }

    /// Confirms an email/password user with the token and token id from the server log.
    public func confirm(token: String, tokenId: String) async throws {
        guard app.auth.emailPasswordEnabled else { throw Self.disabled(Provider.emailPassword) }
        guard var user = try await storage.user(appId: app.appId, id: tokenId), user.provider == Provider.emailPassword
        else { throw AuthError(.userNotFound, "no user waits for this confirmation") }
        guard !user.confirmed, let expected = user.confirmationToken,
            constantTimeEquals(Array(expected.utf8), Array(Self.confirmationHash(token).utf8))
        else { throw AuthError(.invalidConfirmation, "the confirmation token is wrong or already used") }
        user.confirmed = true
        user.confirmationToken = nil
        try await storage.updateUser(user)
        await log("info", "confirmed \(user.identity) (user \(user.id))")
    }

    static func confirmationHash(_ token: String) -> String {
        "sha256$" + SHA256.hash(data: Array(token.utf8)).hexString
    }

    /// One `@`, a non-empty local part, a domain with a dot inside, no spaces.
    static func isValidEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, email.count <= 254,
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { return false }
        let domain = parts[1]
        return domain.contains(".") && !domain.hasPrefix(".") && !domain.hasSuffix(".") && !domain.contains("..")
    }
}
