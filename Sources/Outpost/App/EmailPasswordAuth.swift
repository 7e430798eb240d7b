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
        Task {
            do {
                try await registerUser(email: email, password: password)
                completion(nil)
            } catch {
                completion(error)
            }
        }
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
        Task {
            do {
                try await confirmUser(token, tokenId: tokenId)
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }
}
