import Foundation
import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// Password reset and repeated confirmation through `app.emailPasswordAuth`, against a real server whose tokens are
/// read from its log (it sends no mail).
@Suite struct PasswordResetTests {
    /// The token and token id of the last log line about `email` (nil when there is none).
    static func token(for email: String, _ t: TestApp) async throws -> (token: String, tokenId: String)? {
        let logs = try await t.server.storage.logs(appId: t.server.appId, kind: "auth", since: nil, until: nil, limit: 100)
        for record in logs.reversed() {
            guard case .document(let fields)? = record.details, fields["email"] == .string(email),
                case .string(let token)? = fields["token"], case .string(let tokenId)? = fields["tokenId"]
            else { continue }
            return (token, tokenId)
        }
        return nil
    }

    @Test func aResetTokenFromTheLogSetsANewPasswordOnce() async throws {
        try await withTestApp { t in
            let auth = t.app.emailPasswordAuth
            let user = try await t.emailUser("reset@example.com", password: "old-password")
            try await user.logOut()
            try await auth.sendResetPasswordEmail("reset@example.com")
            let (token, tokenId) = try #require(try await Self.token(for: "reset@example.com", t))
            #expect(tokenId == user.id)

            let wrong = await appError { try await auth.resetPassword(to: "new-password", token: "0000", tokenId: tokenId) }
            #expect(wrong?.code == .badRequest && wrong?.serverErrorCode == "UserpassTokenInvalid")
            #expect(wrong?.message == "the password reset token is wrong, used or expired")
            let short = await appError { try await auth.resetPassword(to: "abc", token: token, tokenId: tokenId) }
            #expect(short?.code == .badRequest && short?.message.contains("between 6 and 128") == true)

            try await auth.resetPassword(to: "new-password", token: token, tokenId: tokenId)
            let again = try await t.app.login(credentials: .emailPassword(email: "reset@example.com", password: "new-password"))
            #expect(again.id == user.id)
            let old = await appError {
                try await t.app.login(credentials: .emailPassword(email: "reset@example.com", password: "old-password"))
            }
            #expect(old?.code == .invalidPassword)
            let reused = await appError { try await auth.resetPassword(to: "third-password", token: token, tokenId: tokenId) }
            #expect(reused?.serverErrorCode == "UserpassTokenInvalid")
        }
    }

    /// One user's token cannot reset another's password, and an unknown email gets the same answer with no token.
    @Test func aTokenOnlyResetsItsOwnUser() async throws {
        try await withTestApp { t in
            let auth = t.app.emailPasswordAuth
            let victim = try await t.emailUser("victim@example.com", password: "victim-pass")
            _ = try await t.emailUser("attacker@example.com", password: "attacker-pass")
            try await auth.sendResetPasswordEmail("attacker@example.com")
            let (token, _) = try #require(try await Self.token(for: "attacker@example.com", t))
            let refused = await appError { try await auth.resetPassword(to: "taken-over", token: token, tokenId: victim.id) }
            #expect(refused?.serverErrorCode == "UserpassTokenInvalid")
            _ = try await t.app.login(credentials: .emailPassword(email: "victim@example.com", password: "victim-pass"))

            try await auth.sendResetPasswordEmail("nobody@example.com")
            #expect(try await Self.token(for: "nobody@example.com", t) == nil)
        }
    }

    @Test func aResetTokenExpiresAfterThirtyMinutes() async throws {
        let now = Mutex(Date())
        try await withTestApp(clock: { now.withLock { $0 } }) { t in
            let auth = t.app.emailPasswordAuth
            _ = try await t.emailUser("late@example.com", password: "password1")
            try await auth.sendResetPasswordEmail("late@example.com")
            let (token, tokenId) = try #require(try await Self.token(for: "late@example.com", t))
            now.withLock { $0 += AuthService.resetTokenLifetime + 1 }
            let late = await appError { try await auth.resetPassword(to: "password2", token: token, tokenId: tokenId) }
            #expect(late?.serverErrorCode == "UserpassTokenInvalid")
        }
    }

    @Test func resendingAConfirmationReplacesTheToken() async throws {
        var config = AppDefinition.development(appId: "resend-\(UUID().uuidString.prefix(6))")
        config.auth.emailPasswordAutoConfirm = false
        try await withTestApp(configuration: config) { t in
            let auth = t.app.emailPasswordAuth
            try await auth.registerUser(email: "gus@example.com", password: "password1")
            let first = try #require(try await Self.token(for: "gus@example.com", t))
            try await auth.resendConfirmationEmail("gus@example.com")
            let second = try #require(try await Self.token(for: "gus@example.com", t))
            #expect(second.token != first.token && second.tokenId == first.tokenId)
            let stale = await appError { try await auth.confirmUser(first.token, tokenId: first.tokenId) }
            #expect(stale?.serverErrorCode == "UserpassConfirmationFailed")
            try await auth.confirmUser(second.token, tokenId: second.tokenId)
            _ = try await t.app.login(credentials: .emailPassword(email: "gus@example.com", password: "password1"))
            // A confirmed (or unknown) email gets the same answer and no new token.
            try await auth.resendConfirmationEmail("gus@example.com")
            #expect(try await Self.token(for: "gus@example.com", t)?.token == second.token)
        }
    }

    @Test func functionsAreNotRunAndRequestsAreThrottledPerAddress() async throws {
        var config = AppDefinition.development(appId: "reset-fn-\(UUID().uuidString.prefix(6))")
        config.auth.throttling.newUsersPerAddress = 3
        try await withTestApp(configuration: config) { t in
            let auth = t.app.emailPasswordAuth
            let function = await appError {
                try await auth.callResetPasswordFunction(email: "a@example.com", password: "password1", args: [.string("x")])
            }
            #expect(function?.code == .functionNotFound && function?.httpStatusCode == 404)
            let confirmation = await appError { try await auth.retryCustomConfirmation("a@example.com") }
            #expect(confirmation?.code == .functionNotFound)
            // The address's budget: one registration and two requests pass, the next request is 429.
            _ = try await t.emailUser("budget@example.com")
            try await auth.sendResetPasswordEmail("budget@example.com")
            try await auth.resendConfirmationEmail("budget@example.com")
            let throttled = await appError { try await auth.sendResetPasswordEmail("budget@example.com") }
            #expect(throttled?.httpStatusCode == 429)
        }
    }

    @Test func completionHandlersReportTheOutcome() async throws {
        try await withTestApp { t in
            let auth = t.app.emailPasswordAuth
            _ = try await t.emailUser("cb@example.com")
            let sent: Error? = await withCheckedContinuation { c in auth.sendResetPasswordEmail("cb@example.com") { c.resume(returning: $0) } }
            #expect(sent == nil)
            let (token, tokenId) = try #require(try await Self.token(for: "cb@example.com", t))
            let reset: Error? = await withCheckedContinuation { c in
                auth.resetPassword(to: "password9", token: token, tokenId: tokenId) { c.resume(returning: $0) }
            }
            #expect(reset == nil)
            let failed: Error? = await withCheckedContinuation { c in
                auth.callResetPasswordFunction(email: "cb@example.com", password: "password9", args: []) { c.resume(returning: $0) }
            }
            #expect((failed as? AppError)?.code == .functionNotFound)
        }
    }
}
