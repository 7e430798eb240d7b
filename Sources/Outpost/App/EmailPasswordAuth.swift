import Foundation

/// Registration and confirmation of email/password users, as Realm Swift's `EmailPasswordAuth`
/// (`app.emailPasswordAuth`).
///
/// outpost-server sends no emails: with auto-confirm off, the confirmation token and token id are written to the
/// server's log (see the server documentation) and confirmed with ``confirmUser(_:tokenId:)``.
public final class EmailPasswordAuth: Sendable {
    let state: AppState

    init(state: AppState) {
        self.state = state
    }

    /// Registers a new email/password user. Log in afterwards with `.emailPassword(email:password:)`.
    ///
    /// - Throws: ``AppError``: `.accountNameInUse` when the email is registered, `.badRequest` for an invalid
    ///   email or a password shorter than 6 characters — with the server's message.
    public func registerUser(email: String, password: String) async throws {
        _ = try await state.api.send(
            .POST, "auth/providers/local-userpass/register",
            body: .object(["email": .string(email), "password": .string(password)]))
    }

    /// Registers a user (see ``registerUser(email:password:)``) and calls `completion` with nil or the error, on an
    /// arbitrary thread.
    @preconcurrency
    public func registerUser(email: String, password: String, completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.registerUser(email: email, password: password) }
    }

    /// Confirms a registered user with the token and token id of the confirmation.
    ///
    /// - Throws: ``AppError`` `.badRequest` for a wrong or used token, with the server's message.
    public func confirmUser(_ token: String, tokenId: String) async throws {
        _ = try await state.api.send(
            .POST, "auth/providers/local-userpass/confirm",
            body: .object(["token": .string(token), "tokenId": .string(tokenId)]))
    }

    /// Confirms a user (see ``confirmUser(_:tokenId:)``) and calls `completion` with nil or the error, on an
    /// arbitrary thread.
    @preconcurrency
    public func confirmUser(_ token: String, tokenId: String, completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.confirmUser(token, tokenId: tokenId) }
    }

    // MARK: Confirmation and password reset

    /// Asks for a new confirmation of an unconfirmed user. outpost-server writes the new token and token id to its
    /// log (it sends no mail); a confirmed or unknown email gets the same answer.
    public func resendConfirmationEmail(_ email: String) async throws {
        _ = try await state.api.send(
            .POST, "auth/providers/local-userpass/confirm/send", body: .object(["email": .string(email)]))
    }

    @preconcurrency
    public func resendConfirmationEmail(_ email: String, completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.resendConfirmationEmail(email) }
    }

    /// Runs the app's custom confirmation function again. outpost-server does not call functions for confirmations and resets: this fails with
    /// ``AppError`` `.functionNotFound` (use ``resendConfirmationEmail(_:)``).
    public func retryCustomConfirmation(_ email: String) async throws {
        _ = try await state.api.send(
            .POST, "auth/providers/local-userpass/confirm/call", body: .object(["email": .string(email)]))
    }

    @preconcurrency
    public func retryCustomConfirmation(_ email: String, completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.retryCustomConfirmation(email) }
    }

    /// Asks for a password reset. outpost-server writes the token and token id to its log (it sends no mail); the
    /// token is valid for 30 minutes. An unknown email gets the same answer.
    public func sendResetPasswordEmail(_ email: String) async throws {
        _ = try await state.api.send(
            .POST, "auth/providers/local-userpass/reset/send", body: .object(["email": .string(email)]))
    }

    @preconcurrency
    public func sendResetPasswordEmail(_ email: String, completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.sendResetPasswordEmail(email) }
    }

    /// Sets a new password with the token and token id of a password reset.
    ///
    /// - Throws: ``AppError`` `.badRequest` for a wrong, used or expired token or a password of the wrong length,
    ///   with the server's message.
    public func resetPassword(to password: String, token: String, tokenId: String) async throws {
        _ = try await state.api.send(
            .POST, "auth/providers/local-userpass/reset",
            body: .object(["password": .string(password), "token": .string(token), "tokenId": .string(tokenId)]))
    }

    @preconcurrency
    public func resetPassword(
        to password: String, token: String, tokenId: String, completion: @escaping @Sendable (Error?) -> Void
    ) {
        deliver(completion) { try await self.resetPassword(to: password, token: token, tokenId: tokenId) }
    }

    /// Runs the app's password reset function. outpost-server does not call functions for confirmations and resets: this fails with ``AppError``
    /// `.functionNotFound` (use ``sendResetPasswordEmail(_:)``).
    public func callResetPasswordFunction(email: String, password: String, args: [AnyBSON]) async throws {
        let arguments = try args.enumerated().map { try BSONConversion.json($1, path: "args[\($0)]") }
        _ = try await state.api.send(
            .POST, "auth/providers/local-userpass/reset/call",
            body: .object(["email": .string(email), "password": .string(password), "arguments": .array(arguments)]))
    }

    @preconcurrency
    public func callResetPasswordFunction(
        email: String, password: String, args: [AnyBSON], _ completion: @escaping @Sendable (Error?) -> Void
    ) {
        deliver(completion) { try await self.callResetPasswordFunction(email: email, password: password, args: args) }
    }
}
