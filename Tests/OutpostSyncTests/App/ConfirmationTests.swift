import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct ConfirmationTests {
    @Test func unconfirmedUserCannotLogInUntilConfirmed() async throws {
        var config = AppDefinition.development(appId: "confirming")
        config.auth.emailPasswordAutoConfirm = false
        try await withTestApp(configuration: config) { t in
            let auth = t.app.emailPasswordAuth
            try await auth.registerUser(email: "fay@example.com", password: "password1")
            let early = await appError {
                try await t.app.login(credentials: .emailPassword(email: "fay@example.com", password: "password1"))
            }
            #expect(early?.code == .authError && early?.serverErrorCode == "UserNotConfirmed")
            #expect(early?.message == "the user has not confirmed their email yet")
            let logs = try await t.server.storage.logs(appId: t.server.appId, kind: "auth", since: nil, until: nil, limit: 10)
            let details = try #require(logs.compactMap(\.details).last)
            guard case .document(let fields) = details, case .string(let token)? = fields["token"],
                case .string(let tokenId)? = fields["tokenId"]
            else {
                Issue.record("no confirmation details in \(details)")
                return
            }
            let wrong = await appError { try await auth.confirmUser("0000", tokenId: tokenId) }
            #expect(wrong?.code == .badRequest && wrong?.serverErrorCode == "UserpassConfirmationFailed")
            try await auth.confirmUser(token, tokenId: tokenId)
            let user = try await t.app.login(credentials: .emailPassword(email: "fay@example.com", password: "password1"))
            #expect(user.isLoggedIn)
        }
    }
}
