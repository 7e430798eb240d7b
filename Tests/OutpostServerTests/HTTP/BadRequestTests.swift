import Crypto
import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Every bad input gets its HTTP status and error codes.
@Suite struct BadRequestTests {
    func expectError(
        _ response: TestHTTPClient.Response, _ status: Int, _ errorCode: String, _ code: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.errorCode == errorCode, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.code == code, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response["error"]?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(response.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
    }

    @Test func tokenProblems() async throws {
        let clock = TestClock()
        try await withTestServer(clock: clock.now) { server in
            let profile = server.clientPath("auth/profile")
            let login = try await server.loginAnonymous()

            expectError(try await server.client.get(profile), 401, "MissingAuthReq", "missingToken")
            expectError(
                try await server.client.send("GET", profile, headers: ["Authorization": "Basic abc"]), 401,
                "MissingAuthReq", "missingToken")
            expectError(try await server.client.get(profile, bearer: "garbage"), 401, "InvalidSession", "invalidToken")
            // A refresh token where an access token is expected.
            expectError(
                try await server.client.get(profile, bearer: login.refreshToken), 401, "InvalidSession", "invalidToken")
            // An access token where a refresh token is expected.
            expectError(
                try await server.client.post(server.clientPath("auth/session"), bearer: login.accessToken), 401,
                "InvalidSession", "invalidToken")
            expectError(try await server.client.post(server.clientPath("auth/session")), 401, "MissingAuthReq", "missingToken")

            // Forged: signed with another key.
            let forger = TokenSigner(key: SymmetricKey(size: .bits256))
            let now = clock.now()
            let forged = forger.sign(
                TokenClaims(userId: login.userId, appId: server.appId, kind: .access, issuedAt: now, expiresAt: now + 600))
            expectError(try await server.client.get(profile, bearer: forged), 401, "InvalidSession", "invalidSignature")

            // Tampered: payload swapped, signature kept.
            var parts = login.accessToken.split(separator: ".").map(String.init)
            parts[1] = String(forged.split(separator: ".")[1])
            expectError(
                try await server.client.get(profile, bearer: parts.joined(separator: ".")), 401, "InvalidSession",
                "invalidSignature")

            // Expired.
            clock.advance(by: 3600)
            expectError(try await server.client.get(profile, bearer: login.accessToken), 401, "InvalidSession", "expiredToken")
        }
    }

    @Test func tokenOfAnotherApp() async throws {
        // Two servers with the same data directory share the signing key; a token of one app fails on the other.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let login = try await withTestServer(configuration: .development(appId: "app-one"), dataDirectory: directory) {
            try await $0.loginAnonymous()
        }
        try await withTestServer(configuration: .development(appId: "app-two"), dataDirectory: directory) { server in
            let response = try await server.client.get(server.clientPath("auth/profile"), bearer: login.accessToken)
            expectError(response, 401, "InvalidSession", "wrongApp")
        }
    }

    @Test func credentialProblems() async throws {
        try await withTestServer { server in
            #expect(try await server.register("dave@example.com", "secret123").status == 201)
            let wrongPassword = try await server.loginResponse(
                "local-userpass", .object(["username": "dave@example.com", "password": "wrong-one"]))
            expectError(wrongPassword, 401, "InvalidPassword", "invalidPassword")
            let unknownUser = try await server.loginResponse(
                "local-userpass", .object(["username": "nobody@example.com", "password": "secret123"]))
            expectError(unknownUser, 401, "InvalidPassword", "invalidPassword")
            expectError(try await server.register("dave@example.com", "other-pass"), 409, "AccountNameInUse", "userExists")
            expectError(try await server.register("DAVE@example.com ", "other-pass"), 409, "AccountNameInUse", "userExists")
            expectError(try await server.register("erin@example.com", "12345"), 400, "BadRequest", "passwordTooShort")
            expectError(try await server.register("not-an-email", "secret123"), 400, "BadRequest", "invalidEmail")
            expectError(try await server.register("a@b", "secret123"), 400, "BadRequest", "invalidEmail")
            expectError(
                try await server.loginResponse("api-key", .object(["key": "short"])), 401, "InvalidPassword",
                "invalidAPIKey")
        }
    }

    @Test func malformedBodies() async throws {
        try await withTestServer { server in
            let register = server.clientPath("auth/providers/local-userpass/register")
            expectError(try await server.client.send("POST", register, rawBody: "{\"email\": "), 400, "BadRequest", "badRequest")
            expectError(try await server.client.send("POST", register, rawBody: "[1, 2]"), 400, "BadRequest", "badRequest")
            expectError(
                try await server.client.post(register, json: .object(["email": "x@example.com"])), 400, "BadRequest",
                "badRequest")
            expectError(
                try await server.client.post(register, json: .object(["email": .int(3), "password": "secret123"])), 400,
                "BadRequest", "badRequest")
            let login = server.clientPath("auth/providers/local-userpass/login")
            expectError(try await server.client.send("POST", login, rawBody: "not json"), 400, "BadRequest", "badRequest")
            expectError(try await server.client.post(login), 400, "BadRequest", "badRequest")
        }
    }

    @Test func unknownAppAndProvider() async throws {
        try await withTestServer { server in
            expectError(
                try await server.loginResponse("anon-user", appId: "no-such-app"), 404, "AppNotFound", "appNotFound")
            expectError(
                try await server.client.get(server.clientPath("auth/profile", appId: "no-such-app")), 404, "AppNotFound",
                "appNotFound")
            expectError(
                try await server.loginResponse("oauth2-google"), 404, "AuthProviderNotFound", "providerNotFound")
            let unknownRoute = try await server.client.get("/no/such/route")
            #expect(unknownRoute.status == 404)
        }
    }

    @Test func disabledProviders() async throws {
        var app = AppDefinition.development(appId: "locked")
        app.auth.anonymousEnabled = false
        app.auth.emailPasswordEnabled = false
        app.auth.apiKeysEnabled = false
        try await withTestServer(configuration: app) { server in
            expectError(try await server.loginResponse("anon-user"), 400, "AuthProviderNotFound", "providerDisabled")
            expectError(try await server.register("f@example.com", "secret123"), 400, "AuthProviderNotFound", "providerDisabled")
            expectError(
                try await server.loginResponse("local-userpass", .object(["username": "f@example.com", "password": "secret123"])),
                400, "AuthProviderNotFound", "providerDisabled")
            expectError(
                try await server.loginResponse("api-key", .object(["key": "k"])), 400, "AuthProviderNotFound",
                "providerDisabled")
        }
    }
}
