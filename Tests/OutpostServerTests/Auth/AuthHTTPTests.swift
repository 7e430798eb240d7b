import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Tokens of one login over HTTP.
struct Login {
    var accessToken: String
    var refreshToken: String
    var userId: String
}

extension TestServer {
    func register(_ email: String, _ password: String) async throws -> TestHTTPClient.Response {
        try await client.post(
            clientPath("auth/providers/local-userpass/register"),
            json: .object(["email": .string(email), "password": .string(password)]))
    }

    func loginResponse(_ provider: String, _ body: JSONValue = .object([:]), appId: String? = nil) async throws
        -> TestHTTPClient.Response
    {
        try await client.post(clientPath("auth/providers/\(provider)/login", appId: appId), json: body)
    }

    func login(_ email: String, _ password: String) async throws -> Login {
        try Self.login(
            from: await loginResponse(
                "local-userpass", .object(["username": .string(email), "password": .string(password)])))
    }

    func loginAnonymous() async throws -> Login {
        try Self.login(from: await loginResponse("anon-user"))
    }

    static func login(from response: TestHTTPClient.Response) throws -> Login {
        try #require(response.status == 200, "login failed: \(response.status) \(response.text)")
        return Login(
            accessToken: try #require(response["access_token"]), refreshToken: try #require(response["refresh_token"]),
            userId: try #require(response["user_id"]))
    }
}

@Suite struct AuthHTTPTests {
    @Test func registerLoginRefreshLogoutProfile() async throws {
        try await withTestServer { server in
            let registered = try await server.register("Alice@Example.com", "secret123")
            #expect(registered.status == 201)

            let loginResponse = try await server.loginResponse(
                "local-userpass", .object(["username": "alice@example.com", "password": "secret123"]))
            #expect(loginResponse.status == 200)
            #expect(loginResponse.headers["content-type"] == "application/json")
            let login = try TestServer.login(from: loginResponse)
            #expect(try ObjectId(string: login.userId).stringValue == login.userId)
            #expect(loginResponse["device_id"]?.count == 24)

            let profile = try await server.client.get(server.clientPath("auth/profile"), bearer: login.accessToken)
            #expect(profile.status == 200)
            #expect(profile["user_id"] == login.userId)
            #expect(
                profile.json
                    == .object([
                        "user_id": .string(login.userId),
                        "identities": .array([
                            .object(["id": "alice@example.com", "provider_type": "local-userpass"])
                        ]),
                        "data": .object(["email": "alice@example.com"]),
                        "custom_data": .object([:]),
                    ]))

            let refreshed = try await server.client.post(server.clientPath("auth/session"), bearer: login.refreshToken)
            #expect(refreshed.status == 201)
            let newAccess = try #require(refreshed["access_token"])
            let user = try await server.auth.authenticate(accessToken: newAccess)
            #expect(user.userId == login.userId && user.appId == server.appId)
            #expect(user.data == ["email": "alice@example.com"])

            let logout = try await server.client.delete(server.clientPath("auth/session"), bearer: login.refreshToken)
            #expect(logout.status == 204)
            let afterLogout = try await server.client.post(server.clientPath("auth/session"), bearer: login.refreshToken)
            #expect(afterLogout.status == 401)
            #expect(afterLogout.errorCode == "InvalidSession" && afterLogout.code == "invalidToken")
            // Access tokens stay valid until they expire.
            #expect(try await server.client.get(server.clientPath("auth/profile"), bearer: newAccess).status == 200)
        }
    }

    @Test func anonymousLoginCreatesANewUserEachTime() async throws {
        try await withTestServer { server in
            let first = try await server.loginAnonymous()
            let second = try await server.loginAnonymous()
            #expect(first.userId != second.userId)
            let profile = try await server.client.get(server.clientPath("auth/profile"), bearer: first.accessToken)
            #expect(profile.status == 200)
            guard case .object(let fields)? = profile.json, case .array(let identities)? = fields["identities"] else {
                Issue.record("no identities in \(profile.text)")
                return
            }
            #expect(identities == [.object(["id": .string(first.userId), "provider_type": "anon-user"])])
            #expect(try await server.storage.users(appId: server.appId).count == 2)
        }
    }

    @Test func confirmationFlow() async throws {
        var app = AppDefinition.development(appId: "confirm-app")
        app.auth.emailPasswordAutoConfirm = false
        try await withTestServer(configuration: app) { server in
            #expect(try await server.register("bob@example.com", "hunter22").status == 201)
            let beforeConfirm = try await server.loginResponse(
                "local-userpass", .object(["username": "bob@example.com", "password": "hunter22"]))
            #expect(beforeConfirm.status == 401)
            #expect(beforeConfirm.code == "notConfirmed")

            let logs = try await server.storage.logs(appId: server.appId, kind: "auth", since: nil, until: nil, limit: 10)
            let record = try #require(logs.last { $0.message.hasPrefix("confirmation for bob@example.com") })
            guard case .document(let details)? = record.details, case .string(let token)? = details["token"],
                case .string(let tokenId)? = details["tokenId"]
            else {
                Issue.record("no token in \(record)")
                return
            }
            #expect(record.message.contains("token=\(token)") && record.message.contains("tokenId=\(tokenId)"))

            let confirmPath = server.clientPath("auth/providers/local-userpass/confirm")
            let wrong = try await server.client.post(
                confirmPath, json: .object(["token": "0000", "tokenId": .string(tokenId)]))
            #expect(wrong.status == 400 && wrong.code == "invalidConfirmation")
            let unknown = try await server.client.post(
                confirmPath, json: .object(["token": .string(token), "tokenId": "5f0000000000000000000000"]))
            #expect(unknown.status == 401 && unknown.code == "userNotFound")
            let confirmed = try await server.client.post(
                confirmPath, json: .object(["token": .string(token), "tokenId": .string(tokenId)]))
            #expect(confirmed.status == 200)
            let again = try await server.client.post(
                confirmPath, json: .object(["token": .string(token), "tokenId": .string(tokenId)]))
            #expect(again.status == 400 && again.code == "invalidConfirmation")
            _ = try await server.login("bob@example.com", "hunter22")
        }
    }

    @Test func apiKeys() async throws {
        try await withTestServer { server in
            let login = try await server.loginAnonymous()
            let keysPath = server.clientPath("auth/api_keys")
            let created = try await server.client.post(keysPath, json: .object(["name": "ci"]), bearer: login.refreshToken)
            #expect(created.status == 201)
            let key = try #require(created["key"])
            let keyId = try #require(created["_id"])
            #expect(created["name"] == "ci")

            // The key is shown once: the list has no secret, storage only a hash.
            let list = try await server.client.get(keysPath, bearer: login.accessToken)
            #expect(list.status == 200)
            #expect(list.json == .array([.object(["_id": .string(keyId), "name": "ci", "disabled": false])]))
            #expect(!list.text.contains(key))
            let stored = try #require(try await server.storage.apiKey(appId: server.appId, id: keyId))
            #expect(stored.keyHash != key && !stored.keyHash.contains(key))
            #expect(try await server.client.get(keysPath + "/" + keyId, bearer: login.refreshToken).status == 200)

            let keyLogin = try await server.loginResponse("api-key", .object(["key": .string(key)]))
            #expect(keyLogin.status == 200)
            #expect(keyLogin["user_id"] == login.userId)

            let badKey = try await server.loginResponse("api-key", .object(["key": .string(keyId + String(repeating: "0", count: 64))]))
            #expect(badKey.status == 401 && badKey.code == "invalidAPIKey")

            #expect(try await server.client.delete(keysPath + "/" + keyId, bearer: login.refreshToken).status == 204)
            let missing = try await server.client.delete(keysPath + "/" + keyId, bearer: login.refreshToken)
            #expect(missing.status == 404 && missing.errorCode == "NotFound")
            let afterDelete = try await server.loginResponse("api-key", .object(["key": .string(key)]))
            #expect(afterDelete.status == 401 && afterDelete.code == "invalidAPIKey")

            // Another user cannot delete someone else's key.
            let otherKey = try await server.client.post(keysPath, json: .object(["name": "x"]), bearer: login.refreshToken)
            let intruder = try await server.loginAnonymous()
            let stolen = try await server.client.delete(
                keysPath + "/" + (otherKey["_id"] ?? ""), bearer: intruder.refreshToken)
            #expect(stolen.status == 404)
        }
    }

    @Test func passwordsAreNeverStoredInPlainText() async throws {
        let storage = MemoryStorage()
        try await withTestServer(storage: storage) { server in
            _ = try await server.register("carol@example.com", "plaintext-password")
            let user = try #require(
                try await storage.user(appId: server.appId, provider: "local-userpass", identity: "carol@example.com"))
            let hash = try #require(user.passwordHash)
            #expect(hash.hasPrefix("pbkdf2-sha256$"))
            #expect(!hash.contains("plaintext-password"))
            let everything = "\(user)"
            #expect(!everything.contains("plaintext-password"))
            let logs = try await storage.logs(appId: server.appId, kind: nil, since: nil, until: nil, limit: 100)
            #expect(!logs.contains { "\($0)".contains("plaintext-password") })
        }
    }

    @Test func accessTokensExpireAndRefreshTokensRenewThem() async throws {
        let clock = TestClock()
        try await withTestServer(clock: clock.now) { server in
            let login = try await server.loginAnonymous()
            let profilePath = server.clientPath("auth/profile")
            #expect(try await server.client.get(profilePath, bearer: login.accessToken).status == 200)
            clock.advance(by: 1801)
            let expired = try await server.client.get(profilePath, bearer: login.accessToken)
            #expect(expired.status == 401)
            #expect(expired.errorCode == "InvalidSession" && expired.code == "expiredToken")
            let refreshed = try await server.client.post(server.clientPath("auth/session"), bearer: login.refreshToken)
            let access = try #require(refreshed["access_token"])
            #expect(try await server.client.get(profilePath, bearer: access).status == 200)
            clock.advance(by: 61 * 86_400)
            let expiredRefresh = try await server.client.post(server.clientPath("auth/session"), bearer: login.refreshToken)
            #expect(expiredRefresh.status == 401 && expiredRefresh.code == "expiredToken")
        }
    }
}
