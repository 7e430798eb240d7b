import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Identity linking over HTTP (`POST …/auth/providers/{provider}/login?link=true` with the user's access token), on
/// both storage drivers, with a second user trying to take the first one's identity.
@Suite struct IdentityLinkingTests {
    func link(_ server: TestServer, _ provider: String, _ body: JSONValue, as token: String?) async throws
        -> TestHTTPClient.Response
    {
        try await server.client.send(
            "POST", server.clientPath("auth/providers/\(provider)/login?link=true"), json: body, bearer: token)
    }

    func credentials(_ email: String, _ password: String = "secret123") -> JSONValue {
        .object(["username": .string(email), "password": .string(password)])
    }

    /// An anonymous user links a registered email that never logged in: the answer is a new access token of the
    /// anonymous user (no refresh token: no new session), the profile lists both identities, and logging in with
    /// the email is logging in as that user from then on.
    @Test(arguments: Driver.enabled)
    func anAnonymousUserKeepsItsIdByLinkingAnEmail(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                let anonymous = try await server.loginAnonymous()
                #expect(try await server.register("ada@example.com", "secret123").status == 201)
                let linked = try await link(server, "local-userpass", credentials("ada@example.com"), as: anonymous.accessToken)
                #expect(linked.status == 200, "\(linked.text)")
                #expect(linked["user_id"] == anonymous.userId && linked["refresh_token"] == nil)
                let token = try #require(linked["access_token"])
                let profile = try await server.client.get(server.clientPath("auth/profile"), bearer: token)
                let identities = profile.json?["identities"]?.items.compactMap { $0["provider_type"]?.stringValue }
                #expect(identities == ["anon-user", "local-userpass"])
                #expect(profile.json?["user_id"]?.stringValue == anonymous.userId)
                let byEmail = try await server.login("ada@example.com", "secret123")
                #expect(byEmail.userId == anonymous.userId)
                // Linking the same identity again is a no-op success; the profile does not list it twice.
                let again = try await link(server, "local-userpass", credentials("ada@example.com"), as: byEmail.accessToken)
                #expect(again.status == 200 && again["user_id"] == anonymous.userId)
                let after = try await server.client.get(server.clientPath("auth/profile"), bearer: byEmail.accessToken)
                #expect(after.json?["identities"]?.items.count == 2)
            }
        }
    }

    /// Another user's identity (one that has logged in) cannot be taken, with or without its password; anonymous
    /// credentials and a second email cannot be linked; a link needs the user's access token; nothing changes.
    @Test(arguments: Driver.enabled)
    func anotherUsersIdentityCannotBeTaken(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                #expect(try await server.register("victim@example.com", "secret123").status == 201)
                let victim = try await server.login("victim@example.com", "secret123")
                let attacker = try await server.loginAnonymous()

                let taken = try await link(server, "local-userpass", credentials("victim@example.com"), as: attacker.accessToken)
                #expect(taken.status == 401 && taken.errorCode == "InvalidSession")
                #expect(taken.json?["error"]?.stringValue == "a user already exists with the specified provider")
                let guessed = try await link(server, "local-userpass", credentials("victim@example.com", "wrong-password"),
                                             as: attacker.accessToken)
                #expect(guessed.status == 401 && guessed.errorCode == "InvalidPassword")
                #expect(try await server.login("victim@example.com", "secret123").userId == victim.userId)

                let anonymous = try await link(server, "anon-user", .object([:]), as: attacker.accessToken)
                #expect(anonymous.status == 400 && anonymous.errorCode == "InvalidParameter")
                #expect(anonymous.json?["error"]?.stringValue == "linking an anonymous identity is not allowed")
                #expect(try await link(server, "local-userpass", credentials("victim@example.com"), as: nil).status == 401)
                #expect(try await link(server, "local-userpass", credentials("victim@example.com"),
                                       as: attacker.refreshToken).status == 401)

                // A user with an email identity cannot link a second one.
                #expect(try await server.register("second@example.com", "secret123").status == 201)
                let second = try await link(server, "local-userpass", credentials("second@example.com"), as: victim.accessToken)
                #expect(second.status == 400 && second.errorCode == "InvalidParameter")
                // ...and the refused email still logs in as its own, new user.
                #expect(try await server.login("second@example.com", "secret123").userId != victim.userId)

                let victimRow = try #require(try await storage.user(appId: server.appId, id: victim.userId))
                #expect(victimRow.linkedTo == nil && (victimRow.linkedIdentities ?? []).isEmpty)
                let attackerRow = try #require(try await storage.user(appId: server.appId, id: attacker.userId))
                #expect((attackerRow.linkedIdentities ?? []).isEmpty)
            }
        }
    }

    /// Deleting a user (admin API) deletes the identities linked to it: the email can be registered again.
    @Test(arguments: Driver.enabled)
    func deletingAUserDeletesItsLinkedIdentities(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                let anonymous = try await server.loginAnonymous()
                #expect(try await server.register("gone@example.com", "secret123").status == 201)
                #expect(try await link(server, "local-userpass", credentials("gone@example.com"), as: anonymous.accessToken)
                    .status == 200)
                let deleted = try await server.client.send(
                    "DELETE", "/api/admin/v1/users/\(anonymous.userId)", headers: ["X-Admin-Key": try server.adminKey])
                #expect(deleted.status == 204)
                #expect(try await storage.user(appId: server.appId, provider: "local-userpass", identity: "gone@example.com") == nil)
                #expect(try await server.register("gone@example.com", "secret123").status == 201)
            }
        }
    }

    /// A JWT subject seen first in a link joins the linking user, and its logins are that user's from then on; a
    /// subject that has logged in on its own is another user's, and cannot be linked.
    @Test(arguments: Driver.enabled)
    func aNewJWTSubjectJoinsTheLinkingUser(driver: Driver) async throws {
        var configuration = AppDefinition.development(appId: "jwt-link")
        configuration.auth.customToken = AppDefinition.CustomToken(algorithm: .hs256, signingKeys: ["link secret"])
        let app = configuration
        try await driver.withStorage { storage in
            try await withTestServer(configuration: app, storage: storage) { server in
                func token(_ subject: String) -> JSONValue {
                    .object(["token": .string(TestJWT.hs256(TestJWT.claims(sub: subject), secret: "link secret"))])
                }
                let anonymous = try await server.loginAnonymous()
                let linked = try await link(server, "custom-token", token("sub-new"), as: anonymous.accessToken)
                #expect(linked.status == 200 && linked["user_id"] == anonymous.userId, "\(linked.text)")
                let login = try TestServer.login(from: try await server.loginResponse("custom-token", token("sub-new")))
                #expect(login.userId == anonymous.userId)

                let owner = try TestServer.login(from: try await server.loginResponse("custom-token", token("sub-owned")))
                let taken = try await link(server, "custom-token", token("sub-owned"), as: anonymous.accessToken)
                #expect(taken.status == 401 && taken.errorCode == "InvalidSession")
                #expect(try TestServer.login(from: try await server.loginResponse("custom-token", token("sub-owned"))).userId
                    == owner.userId)
            }
        }
    }
}
