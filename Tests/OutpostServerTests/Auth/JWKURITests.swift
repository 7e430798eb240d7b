import Crypto
import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing
import _CryptoExtras

/// The `custom-token` provider with a JWK URI: the identity provider's keys come from a real HTTP server on
/// 127.0.0.1, a token's `kid` picks the key, rotated keys are fetched again (throttled), and a provider that cannot
/// be reached is reported with 503 while keys fetched before stand in for a day.
@Suite struct JWKURITests {
    struct SigningKey {
        let id: String?
        let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

        /// The key's public half as a JSON Web Key.
        var jwk: JSONValue {
            let primitives = try! key.publicKey.getKeyPrimitives()
            var fields: [String: JSONValue] = [
                "kty": "RSA", "use": "sig", "alg": "RS256",
                "n": .string(Self.base64URL(primitives.modulus)), "e": .string(Self.base64URL(primitives.publicExponent)),
            ]
            if let id { fields["kid"] = .string(id) }
            return .object(fields)
        }

        /// An RS256 token of `claims` signed with this key; its header names `kid` (this key's id by default).
        func token(_ claims: JSONValue = TestJWT.claims(), kid: String?? = .none) -> String {
            var header: [String: JSONValue] = ["alg": "RS256", "typ": "JWT"]
            if let named = kid ?? id { header["kid"] = .string(named) }
            return TestJWT.token(claims, header: .object(header)) { input in
                Array((try? key.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5))?.rawRepresentation ?? Data())
            }
        }

        static func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
    }

    static func keySet(_ keys: [SigningKey]) -> String { JSONValue.object(["keys": .array(keys.map(\.jwk))]).text }

    static func app(jwkURI: String) -> AppDefinition {
        var app = AppDefinition.development(appId: "jwk-app")
        app.auth.customToken = AppDefinition.CustomToken(algorithm: .rs256, jwkURI: jwkURI)
        return app
    }

    static func login(_ server: TestServer, _ token: String) async throws -> TestHTTPClient.Response {
        try await server.loginResponse("custom-token", .object(["token": .string(token)]))
    }

    /// The server log's `auth` messages.
    static func authLog(_ server: TestServer) async throws -> [String] {
        try await server.storage.logs(appId: server.appId, kind: "auth", since: nil, until: nil, limit: 1_000).map(\.message)
    }

    /// Waits until the JWK server has answered `count` requests (a background fetch).
    static func waitForRequests(_ jwks: StaticJSONServer, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while jwks.requests < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(jwks.requests == count)
    }

    static let unavailable = "the custom-token provider's signing keys are unavailable; try again later"

    @Test func keysFromTheURISignTokensAndAreFetchedOnce() async throws {
        let a = SigningKey(id: "a"), b = SigningKey(id: "b"), stranger = SigningKey(id: "a")
        try await StaticJSONServer.with(path: "/.well-known/jwks.json", body: Self.keySet([a, b])) { jwks in
            try await withTestServer(configuration: Self.app(jwkURI: jwks.url)) { server in
                let first = try await Self.login(server, a.token())
                #expect(first.status == 200, "\(first.text)")
                #expect(try await Self.login(server, b.token(TestJWT.claims(sub: "other"))).status == 200)
                // A token that names no key is checked with each key of the set.
                #expect(try await Self.login(server, b.token(kid: .some(nil))).status == 200)
                #expect(jwks.requests == 1, "the set is fetched once and cached")
                // Signed with another key under a known id: refused, and the set is not fetched again for it.
                let forged = try await Self.login(server, stranger.token())
                #expect(forged.status == 401 && forged.code == "invalidSignature", "\(forged.text)")
                #expect(jwks.requests == 1)
                // The same user at each login, as with a configured key.
                let again = try await Self.login(server, a.token())
                #expect(again["user_id"] == first["user_id"])
            }
        }
    }

    @Test func loginsAtTheSameTimeShareOneFetch() async throws {
        let key = SigningKey(id: "k")
        try await StaticJSONServer.with(path: "/jwks", body: Self.keySet([key])) { jwks in
            try await withTestServer(configuration: Self.app(jwkURI: jwks.url)) { server in
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for n in 0..<8 {
                        group.addTask { try await Self.login(server, key.token(TestJWT.claims(sub: "user-\(n)"))).status }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: 8))
                #expect(jwks.requests == 1)
            }
        }
    }

    @Test func aRotatedKeyIsFetchedAndUnknownIdsAreThrottled() async throws {
        let old = SigningKey(id: "2026-01"), new = SigningKey(id: "2026-02"), made = SigningKey(id: "made-up")
        let clock = TestClock()
        try await StaticJSONServer.with(path: "/jwks", body: Self.keySet([old])) { jwks in
            try await withTestServer(configuration: Self.app(jwkURI: jwks.url), clock: clock.now) { server in
                #expect(try await Self.login(server, old.token()).status == 200)
                // The provider rotates: a token of the new key fetches the set again.
                jwks.body = Self.keySet([new])
                clock.advance(by: 60)
                // Four logins with the new key at once: they wait for one fetch, and all succeed.
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for n in 0..<4 {
                        group.addTask { try await Self.login(server, new.token(TestJWT.claims(sub: "rotated-\(n)"))).status }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == [200, 200, 200, 200])
                #expect(jwks.requests == 2)
                // The old key is gone from the set: its tokens are refused.
                let retired = try await Self.login(server, old.token())
                #expect(retired.status == 401 && retired.code == "invalidSignature", "\(retired.text)")
                // Unknown ids fetch the set at most once per 30 s.
                for _ in 0..<5 {
                    let refused = try await Self.login(server, made.token())
                    #expect(refused.status == 401 && refused.code == "invalidSignature"
                            && refused.text.contains("no signing key of the identity provider has its 'kid'"), "\(refused.text)")
                }
                #expect(jwks.requests == 2, "fetched again within 30 s of the last fetch")
                clock.advance(by: JSONWebKeySource.refetchInterval + 1)
                #expect(try await Self.login(server, made.token()).status == 401)
                #expect(jwks.requests == 3)
                // A set older than 10 minutes still checks known ids at once, and is fetched again meanwhile.
                clock.advance(by: JSONWebKeySource.maxAge + 1)
                #expect(try await Self.login(server, new.token()).status == 200)
                try await Self.waitForRequests(jwks, 4)
                #expect(!(try await Self.authLog(server)).contains { $0.contains("error") })
            }
        }
    }

    @Test func aProviderThatCannotBeReadIsReportedAndKeysFetchedBeforeStandIn() async throws {
        let key = SigningKey(id: "k")
        let clock = TestClock()
        try await StaticJSONServer.with(path: "/jwks", body: Self.keySet([key])) { jwks in
            jwks.status = 500
            try await withTestServer(configuration: Self.app(jwkURI: jwks.url), clock: clock.now) { server in
                let failed = try await Self.login(server, key.token())
                #expect(failed.status == 503 && failed.code == "signingKeysUnavailable", "\(failed.text)")
                // The client is told nothing of the provider; the server log says what went wrong.
                #expect(failed["error"] == Self.unavailable && !failed.text.contains("127.0.0.1"), "\(failed.text)")
                let log = try await Self.authLog(server)
                #expect(log.contains("custom-token keys: cannot fetch \(jwks.url): answered HTTP 500"), "\(log)")
                // Within 30 s the failure is answered again without asking the provider.
                #expect(try await Self.login(server, key.token()).status == 503)
                #expect(jwks.requests == 1)
                #expect(try await server.storage.users(appId: server.appId).isEmpty, "nothing was created")

                for (body, message) in [("not json", "not a JSON object"), (#"{"keys": []}"#, "no RSA signature key"),
                                        (#"{"keys": [{"kty": "EC", "crv": "P-256"}]}"#, "no RSA signature key"),
                                        (String(repeating: " ", count: JSONWebKeySource.maxSize + 1) + "{}", "larger than")] {
                    clock.advance(by: JSONWebKeySource.refetchInterval + 1)
                    jwks.status = 200
                    jwks.body = body
                    let refused = try await Self.login(server, key.token())
                    #expect(refused.status == 503 && refused["error"] == Self.unavailable, "\(message): \(refused.text)")
                    let log = try await Self.authLog(server)
                    #expect(log.last?.contains(message) == true, "\(log)")
                }
                clock.advance(by: JSONWebKeySource.refetchInterval + 1)
                jwks.body = Self.keySet([key])
                #expect(try await Self.login(server, key.token()).status == 200)

                // The provider goes down: the keys fetched before stand in for a day, answered at once while the
                // set is fetched again in the background.
                jwks.status = 503
                clock.advance(by: JSONWebKeySource.maxAge + 1)
                let requests = jwks.requests
                let standIn = try await Self.login(server, key.token())
                #expect(standIn.status == 200, "\(standIn.text)")
                try await Self.waitForRequests(jwks, requests + 1)
                clock.advance(by: JSONWebKeySource.staleLimit)
                let tooOld = try await Self.login(server, key.token())
                #expect(tooOld.status == 503 && tooOld.code == "signingKeysUnavailable", "\(tooOld.text)")
            }
        }
    }

    @Test func aURIWhereNothingListensIsReported() async throws {
        let key = SigningKey(id: "k")
        // A port that was just free: bound, then closed.
        let closedPort = try await StaticJSONServer.with(path: "/jwks", body: "{}") { $0.port }
        try await withTestServer(configuration: Self.app(jwkURI: "http://127.0.0.1:\(closedPort)/jwks")) { server in
            let refused = try await Self.login(server, key.token())
            #expect(refused.status == 503 && refused.code == "signingKeysUnavailable", "\(refused.text)")
            let log = try await Self.authLog(server)
            #expect(log.contains { $0.hasPrefix("custom-token keys: cannot fetch") }, "\(log)")
            // A malformed token or one of another algorithm is refused before anything is fetched.
            let malformed = try await Self.login(server, "not.a.token")
            #expect(malformed.status == 401 && malformed.code == "invalidToken", "\(malformed.text)")
            let hs256 = try await Self.login(server, TestJWT.hs256(TestJWT.claims(), secret: "s"))
            #expect(hs256.status == 401 && hs256.text.contains("expected an RS256 token"), "\(hs256.text)")
        }
    }

    @Test func configurationIsReadCheckedAndWrittenBack() throws {
        func config(_ customToken: String) throws -> AppDefinition {
            try AppDefinition(jsonText: #"{"app_id": "jwk", "auth": {"custom_token": "# + customToken + "}}")
        }
        let read = try config(#"{"enabled": true, "jwk_uri": "https://idp.example.com/.well-known/jwks.json"}"#)
        let settings = try #require(read.auth.customToken)
        #expect(settings.algorithm == .rs256, "a JWK URI makes RS256 the default")
        #expect(settings.jwkURI == "https://idp.example.com/.well-known/jwks.json" && settings.publicKey == nil)
        #expect(try AppDefinition(jsonText: read.json.text) == read)
        #expect(try config(#"{"enabled": true, "jwk_uri": "http://127.0.0.1:8080/jwks"}"#).auth.customToken?.jwkURI != nil,
                "plain http on a loopback address")

        let pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation
        let bad: [(String, String)] = [
            (#"{"enabled": true, "signing_algorithm": "HS256", "signing_keys": ["k"], "jwk_uri": "https://idp/jwks"}"#,
             "auth.custom_token.signing_algorithm"),
            (#"{"enabled": true, "jwk_uri": "https://idp/jwks", "public_key": "# + JSONValue.string(pem).text + "}",
             "auth.custom_token.public_key"),
            (#"{"enabled": true, "jwk_uri": "ftp://idp/jwks"}"#, "auth.custom_token.jwk_uri"),
            (#"{"enabled": true, "jwk_uri": "http://idp.example.com/jwks"}"#, "auth.custom_token.jwk_uri"),
            (#"{"enabled": true, "jwk_uri": "jwks.json"}"#, "auth.custom_token.jwk_uri"),
            (#"{"enabled": true, "jwk_uri": 42}"#, "auth.custom_token.jwk_uri"),
        ]
        try expectConfigurationErrors(bad, reading: config)
    }

    @Test func aKeySetKeepsOnlyRS256SignatureKeys() throws {
        let a = SigningKey(id: "a"), b = SigningKey(id: "b"), c = SigningKey(id: nil)
        func changed(_ key: SigningKey, _ field: String, _ value: JSONValue) -> [String: JSONValue] {
            guard case .object(var fields) = key.jwk else { return [:] }
            fields[field] = value
            return fields
        }
        let encryption = changed(b, "use", "enc"), otherAlgorithm = changed(b, "alg", "RS512"), broken = changed(b, "n", "!!")
        let text = JSONValue.object(["keys": .array([
            a.jwk, .object(encryption), .object(otherAlgorithm), .object(broken), c.jwk,
            .object(["kty": "oct", "k": "c2VjcmV0"]),
        ])]).text
        let set = try JSONWebKeySet(parsing: text)
        #expect(set.keys.map(\.id) == ["a", nil])
        #expect(set.keys(for: "a").count == 1 && set.keys(for: nil).count == 2)
        #expect(set.keys(for: "b").count == 1, "an id the set lacks: the keys without an id")
        #expect(throws: JSONWebKeySet.Invalid.self) { try JSONWebKeySet(parsing: #"{"keys": "none"}"#) }
    }
}
