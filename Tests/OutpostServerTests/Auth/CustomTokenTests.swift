import Crypto
import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing
import _CryptoExtras

/// The `custom-token` provider (App Services' Custom JWT authentication) over HTTP: a JWT of the app's own identity
/// provider logs its `sub` in (the same user every time), its metadata fields go into the profile data, and every bad
/// token is refused with a typed error that says what was wrong, creating no user.
@Suite struct CustomTokenTests {
    static let secret = "a shared secret of the identity provider"

    static func app(_ customToken: AppDefinition.CustomToken) -> AppDefinition {
        var app = AppDefinition.development(appId: "jwt-app")
        app.auth.customToken = customToken
        return app
    }

    static func token(_ claims: JSONValue, header: JSONValue = .object(["alg": "HS256", "typ": "JWT"]),
                      sign: ([UInt8]) -> [UInt8]) -> String {
        TestJWT.token(claims, header: header, sign: sign)
    }

    static func hs256(_ claims: JSONValue, secret: String = secret) -> String { TestJWT.hs256(claims, secret: secret) }

    static func claims(sub: String = "user-42", expiresIn: TimeInterval = 600, extra: [String: JSONValue] = [:]) -> JSONValue {
        TestJWT.claims(sub: sub, expiresIn: expiresIn, extra: extra)
    }

    @Test func aSignedTokenLogsItsSubjectInAsTheSameUserEachTime() async throws {
        let settings = AppDefinition.CustomToken(
            algorithm: .hs256, signingKeys: ["an old secret", Self.secret], audience: ["my-app"],
            metadataFields: [.init(name: "email", required: true), .init(name: "profile.name", fieldName: "name")])
        try await withTestServer(configuration: Self.app(settings)) { server in
            let token = Self.hs256(Self.claims(extra: [
                "aud": .array(["other", "my-app"]), "email": "ann@example.com", "profile": .object(["name": "Ann"]),
            ]))
            let first = try TestServer.login(from: try await server.loginResponse("custom-token", .object(["token": .string(token)])))
            let profile = try await server.client.get(server.clientPath("auth/profile"), bearer: first.accessToken)
            #expect(profile.json == .object([
                "user_id": .string(first.userId),
                "identities": .array([.object(["id": "user-42", "provider_type": "custom-token"])]),
                "data": .object(["email": "ann@example.com", "name": "Ann"]),
                "custom_data": .object([:]),
            ]))
            // Again, with a changed email and signed with the other key: the same user, its data updated.
            let again = Self.hs256(Self.claims(extra: ["aud": "my-app", "email": "ann@example.org"]), secret: "an old secret")
            let second = try TestServer.login(from: try await server.loginResponse("custom-token", .object(["token": .string(again)])))
            #expect(second.userId == first.userId)
            let stored = try #require(try await server.storage.user(appId: server.appId, id: first.userId))
            #expect(stored.data == ["email": "ann@example.org", "name": "Ann"])
            #expect(try await server.storage.users(appId: server.appId).count == 1)
        }
    }

    @Test func badTokensAreRefusedWithWhatWasWrong() async throws {
        let settings = AppDefinition.CustomToken(
            algorithm: .hs256, signingKeys: [Self.secret], audience: ["my-app"],
            metadataFields: [.init(name: "email", required: true)])
        try await withTestServer(configuration: Self.app(settings)) { server in
            let good: [String: JSONValue] = ["aud": "my-app", "email": "ann@example.com"]
            let cases: [(String, String, String)] = [
                (Self.hs256(Self.claims(extra: good), secret: "wrong"), "invalidSignature", "the signature does not verify"),
                (Self.hs256(Self.claims(expiresIn: -3600, extra: good)), "expiredToken", "the token expired"),
                (Self.hs256(Self.claims(extra: good.merging(["nbf": .int(Int64(Date().timeIntervalSince1970 + 3600))]) { $1 })),
                 "invalidToken", "not valid yet"),
                (Self.hs256(Self.claims(extra: ["aud": "elsewhere", "email": "ann@example.com"])), "invalidToken", "'aud'"),
                (Self.hs256(Self.claims(extra: ["aud": "my-app"])), "invalidToken", "required metadata field 'email'"),
                (Self.hs256(.object(["sub": "x", "aud": "my-app", "email": "e"])), "invalidToken", "'exp'"),
                (Self.hs256(.object(["exp": .int(Int64(Date().timeIntervalSince1970 + 600)), "aud": "my-app", "email": "e"])),
                 "invalidToken", "'sub'"),
                (Self.token(Self.claims(extra: good), header: .object(["alg": "none"])) { _ in [] }, "invalidToken",
                 "expected an HS256 token, found 'none'"),
                ("not.a-jwt", "invalidToken", "not a well-formed JWT"),
                ("", "invalidToken", "not a well-formed JWT"),
            ]
            for (token, code, text) in cases {
                let response = try await server.loginResponse("custom-token", .object(["token": .string(token)]))
                #expect(response.status == 401, "\(code): \(response.text)")
                #expect(response.errorCode == "AuthError" && response.code == code, "\(response.text)")
                #expect(response.text.contains("invalid custom auth token") && response.text.contains(text), "\(response.text)")
            }
            let missing = try await server.loginResponse("custom-token", .object([:]))
            #expect(missing.status == 400, "\(missing.text)")
            #expect(try await server.storage.users(appId: server.appId).isEmpty, "no user was created")
        }
    }

    @Test func rs256TokensAreCheckedWithThePublicKey() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let other = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let settings = AppDefinition.CustomToken(algorithm: .rs256, publicKey: key.publicKey.pemRepresentation)
        func rs256(_ claims: JSONValue, _ signer: _RSA.Signing.PrivateKey) -> String {
            Self.token(claims, header: .object(["alg": "RS256", "typ": "JWT"])) { input in
                Array((try? signer.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5))?.rawRepresentation ?? Data())
            }
        }
        try await withTestServer(configuration: Self.app(settings)) { server in
            let good = try await server.loginResponse("custom-token", .object(["token": .string(rs256(Self.claims(), key))]))
            #expect(good.status == 200, "\(good.text)")
            let forged = try await server.loginResponse("custom-token", .object(["token": .string(rs256(Self.claims(), other))]))
            #expect(forged.status == 401 && forged.code == "invalidSignature", "\(forged.text)")
            // An HS256 token "signed" with the public key's text (the classic confusion) is refused by its algorithm.
            let confused = Self.hs256(Self.claims(), secret: key.publicKey.pemRepresentation)
            let refused = try await server.loginResponse("custom-token", .object(["token": .string(confused)]))
            #expect(refused.status == 401 && refused.text.contains("expected an RS256 token"), "\(refused.text)")
        }
    }

    @Test func theProviderIsOffUnlessConfigured() async throws {
        try await withTestServer { server in
            let response = try await server.loginResponse("custom-token", .object(["token": .string(Self.hs256(Self.claims()))]))
            #expect(response.status == 400 && response.errorCode == "AuthProviderNotFound", "\(response.text)")
        }
    }

    @Test func configurationIsReadCheckedAndWrittenBack() throws {
        func config(_ customToken: String) throws -> AppDefinition {
            try AppDefinition(jsonText: #"{"app_id": "jwt", "auth": {"custom_token": "# + customToken + "}}")
        }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation
        let read = try config("""
            {"enabled": true, "signing_algorithm": "RS256", "public_key": \(JSONValue.string(key).text), "audience": "my-app",
             "metadata_fields": [{"name": "profile.email", "required": true}]}
            """)
        let settings = try #require(read.auth.customToken)
        #expect(settings.algorithm == .rs256 && settings.audience == ["my-app"])
        #expect(settings.metadataFields == [.init(name: "profile.email", fieldName: "email", required: true)])
        #expect(try AppDefinition(jsonText: read.json.text) == read)
        #expect(try config(#"{"enabled": false, "signing_keys": []}"#).auth.customToken == nil)

        let bad: [(String, String)] = [
            (#"{"enabled": true}"#, "auth.custom_token.signing_keys"),
            (#"{"enabled": true, "signing_keys": [""]}"#, "auth.custom_token.signing_keys[0]"),
            (#"{"enabled": true, "signing_algorithm": "RS256"}"#, "auth.custom_token.public_key"),
            (#"{"enabled": true, "signing_algorithm": "RS256", "public_key": "not a key"}"#, "auth.custom_token.public_key"),
            (#"{"enabled": true, "signing_algorithm": "ES256", "signing_keys": ["k"]}"#, "auth.custom_token.signing_algorithm"),
            (#"{"enabled": true, "signing_keys": ["k"], "secret": 1}"#, "auth.custom_token.secret"),
            (#"{"enabled": true, "signing_keys": ["k"], "metadata_fields": [{"field_name": "x"}]}"#,
             "auth.custom_token.metadata_fields[0].name"),
        ]
        try expectConfigurationErrors(bad, reading: config)
    }
}

/// Each custom-token section in `bad` is refused with a ``ConfigurationError`` at its path.
func expectConfigurationErrors(_ bad: [(text: String, path: String)], reading config: (String) throws -> AppDefinition)
    throws
{
    for (text, path) in bad {
        do {
            _ = try config(text)
            Issue.record("accepted \(text)")
        } catch let error as ConfigurationError {
            #expect(error.path == path, "\(text): \(error)")
        }
    }
}
