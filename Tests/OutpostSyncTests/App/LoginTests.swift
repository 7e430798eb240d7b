import Foundation
import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct LoginTests {
    @Test func anonymousLoginMakesTheCurrentUser() async throws {
        try await withTestApp { t in
            let app = t.app
            #expect(app.currentUser == nil && app.allUsers.isEmpty)
            let user = try await app.login(credentials: .anonymous)
            #expect(user.id.count == 24 && user.id.allSatisfy(\.isHexDigit))
            #expect(user.isLoggedIn && user.state == .loggedIn)
            #expect(app.currentUser === user)
            #expect(app.allUsers == [user.id: user])
            #expect(user.customData.isEmpty)
            #expect(try await t.server.storage.user(appId: t.server.appId, id: user.id)?.provider == "anon-user")
            // As in Realm, a second anonymous login returns the logged-in anonymous user without a request.
            t.transport.clear()
            #expect(try await app.login(credentials: .anonymous) === user)
            #expect(t.transport.requests.isEmpty)
            // Every App with the same id and configuration shares the users.
            #expect(App(id: t.server.appId, configuration: t.configuration).currentUser === user)
            #expect(App(id: t.server.appId).currentUser === user)
        }
    }

    @Test func registerAndLogInWithEmailAndPassword() async throws {
        try await withTestApp { t in
            let app = t.app
            try await app.emailPasswordAuth.registerUser(email: "Ada@Example.com", password: "secret123")
            let user = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "secret123"))
            #expect(user.isLoggedIn && app.currentUser === user)
            let stored = try #require(try await t.server.storage.user(appId: t.server.appId, id: user.id))
            #expect(stored.identity == "ada@example.com" && stored.provider == "local-userpass")
            #expect(t.transport.requests == [
                "POST auth/providers/local-userpass/register", "POST auth/providers/local-userpass/login",
                "GET auth/profile",
            ])
            // Logging in again keeps one User object per user.
            let again = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "secret123"))
            #expect(again === user && app.allUsers.count == 1)
        }
    }

    @Test func wrongPasswordAndUnknownEmailFailWithTheServersMessage() async throws {
        try await withTestApp { t in
            _ = try await t.emailUser("bob@example.com", password: "right-password")
            let wrong = await appError { try await t.app.login(credentials: .emailPassword(email: "bob@example.com", password: "wrong")) }
            #expect(wrong?.code == .invalidPassword)
            #expect(wrong?.localizedDescription == "invalid username/password")
            #expect(wrong?.httpStatusCode == 401 && wrong?.serverErrorCode == "InvalidPassword")
            #expect(AppError.errorDomain == "io.realm.app" && wrong?.errorCode == 26)
            // An unknown email gets the same answer, so emails cannot be probed.
            let unknown = await appError { try await t.app.login(credentials: .emailPassword(email: "nobody@example.com", password: "x")) }
            #expect(unknown?.code == .invalidPassword && unknown?.message == "invalid username/password")
            do {
                _ = try await t.app.login(credentials: .emailPassword(email: "bob@example.com", password: "nope"))
                Issue.record("login succeeded")
            } catch AppError.invalidPassword {
                // Realm's catch pattern matches by code.
            }
        }
    }

    @Test func registrationErrorsCarryTheServersMessage() async throws {
        try await withTestApp { t in
            let auth = t.app.emailPasswordAuth
            try await auth.registerUser(email: "carol@example.com", password: "password1")
            let taken = await appError { try await auth.registerUser(email: "carol@example.com", password: "password2") }
            #expect(taken?.code == .accountNameInUse && taken?.httpStatusCode == 409)
            #expect(taken?.message.contains("carol@example.com") == true || taken?.message.isEmpty == false)
            let short = await appError { try await auth.registerUser(email: "dan@example.com", password: "123") }
            #expect(short?.code == .badRequest && short?.serverCode == "passwordTooShort")
            let notEmail = await appError { try await auth.registerUser(email: "not an email", password: "password1") }
            #expect(notEmail?.code == .badRequest && notEmail?.serverCode == "invalidEmail")
        }
    }

    @Test func unsupportedAndDisabledProvidersFailWithATypedError() async throws {
        var config = AppDefinition.development(appId: "no-anon")
        config.auth.anonymousEnabled = false
        try await withTestApp(configuration: config) { t in
            let facebook = await appError { try await t.app.login(credentials: .facebook(accessToken: "x")) }
            #expect(facebook?.code == .authProviderNotFound && facebook?.message.contains("oauth2-facebook") == true)
            #expect(t.transport.requests.isEmpty)
            // JWT logins go to the server, whose app has no `custom_token` provider.
            let jwt = await appError { try await t.app.login(credentials: .jwt(token: "a.b.c")) }
            #expect(jwt?.code == .authProviderNotFound)
            #expect(jwt?.message == "the auth provider 'custom-token' is not enabled for this app")
            let anonymous = await appError { try await t.app.login(credentials: .anonymous) }
            #expect(anonymous?.code == .authProviderNotFound)
            #expect(anonymous?.message == "the auth provider 'anon-user' is not enabled for this app")
        }
    }

    /// `.jwt(token:)` logs in through the server's `custom-token` provider: the token's `sub` is the same user at
    /// every login; a token the server refuses is an `AppError` `.authError` with the server's reason.
    @Test func jwtLoginIsTheTokensSubject() async throws {
        var config = AppDefinition.development(appId: "jwt-login")
        config.auth.customToken = .init(algorithm: .hs256, signingKeys: ["provider secret"],
                                        metadataFields: [.init(name: "name")])
        try await withTestApp(configuration: config) { t in
            let token = TestJWT.hs256(TestJWT.claims(sub: "employee-7", extra: ["name": .string("Kim")]), secret: "provider secret")
            let user = try await t.app.login(credentials: .jwt(token: token))
            #expect(user.isLoggedIn && t.app.currentUser === user)
            let stored = try #require(try await t.server.storage.user(appId: t.server.appId, id: user.id))
            #expect(stored.provider == "custom-token" && stored.identity == "employee-7" && stored.data == OutpostCore.Document(["name": .string("Kim")]))
            try await user.logOut()
            let again = try await t.app.login(credentials: .jwt(token: token))
            #expect(again.id == user.id)

            let expired = TestJWT.hs256(TestJWT.claims(sub: "employee-7", expiresIn: -3600), secret: "provider secret")
            let refused = await appError { try await t.app.login(credentials: .jwt(token: expired)) }
            #expect(refused?.code == .authError && refused?.httpStatusCode == 401)
            #expect(refused?.message == "invalid custom auth token: the token expired")
        }
    }

    @Test func apiKeyLoginActsAsTheKeysOwner() async throws {
        try await withTestApp { t in
            let owner = try await t.emailUser()
            let stored = try #require(try await t.server.storage.user(appId: t.server.appId, id: owner.id))
            let (_, key) = try await t.server.auth.createAPIKey(userId: stored.id, name: "ci")
            try await owner.logOut()
            let user = try await t.app.login(credentials: .userAPIKey(key))
            #expect(user === owner && user.isLoggedIn)
            let bad = await appError { try await t.app.login(credentials: .serverAPIKey(String(repeating: "0", count: 88))) }
            #expect(bad?.code == .invalidPassword && bad?.serverCode == "invalidAPIKey")
        }
    }

    @Test func unreachableServerAndWrongAppIdAreClearErrors() async throws {
        try await withTestApp { t in
            // A port nothing listens on.
            let closed = AppConfiguration(baseURL: "http://127.0.0.1:1", rootDirectory: t.root)
            let offline = await appError { try await App(id: "offline-app", configuration: closed).login(credentials: .anonymous) }
            #expect(offline?.code == .httpRequestFailed && offline?.httpStatusCode == nil)
            #expect(offline?.message.hasPrefix(
                "cannot reach the server at http://127.0.0.1:1/api/client/v2.0/app/offline-app/auth/providers/anon-user/login")
                == true)
            let wrongId = AppConfiguration(baseURL: t.server.baseURL, rootDirectory: t.root)
            let missing = await appError { try await App(id: "no-such-app", configuration: wrongId).login(credentials: .anonymous) }
            #expect(missing?.httpStatusCode == 404 && missing?.serverErrorCode == "AppNotFound")
            #expect(missing?.message == "cannot find app using Client App ID 'no-such-app'")
        }
    }

    @Test func completionHandlerForms() async throws {
        try await withTestApp { t in
            let app = t.app
            let registered: (any Error)? = await withCheckedContinuation { continuation in
                app.emailPasswordAuth.registerUser(email: "eve@example.com", password: "password1") {
                    continuation.resume(returning: $0)
                }
            }
            #expect(registered == nil)
            let result: Result<User, any Error> = await withCheckedContinuation { continuation in
                app.login(credentials: .emailPassword(email: "eve@example.com", password: "password1")) {
                    continuation.resume(returning: $0)
                }
            }
            let user = try result.get()
            #expect(user.isLoggedIn)
            let failed: Result<User, any Error> = await withCheckedContinuation { continuation in
                app.login(credentials: .emailPassword(email: "eve@example.com", password: "bad")) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(throws: AppError.self) { try failed.get() }
            let confirm: (any Error)? = await withCheckedContinuation { continuation in
                app.emailPasswordAuth.confirmUser("bogus", tokenId: "bogus") { continuation.resume(returning: $0) }
            }
            // No user has the token id "bogus".
            #expect((confirm as? AppError)?.code == .userNotFound)
            let loggedOut: (any Error)? = await withCheckedContinuation { continuation in
                user.logOut { continuation.resume(returning: $0) }
            }
            #expect(loggedOut == nil && !user.isLoggedIn)
            let removed: (any Error)? = await withCheckedContinuation { continuation in
                user.remove { continuation.resume(returning: $0) }
            }
            #expect(removed == nil && app.allUsers.isEmpty)
        }
    }
}
