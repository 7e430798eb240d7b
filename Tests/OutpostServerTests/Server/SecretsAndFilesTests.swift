import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// What the server keeps to itself: secrets stay out of its logs at every level, its files are readable by its own
/// user only, a token has one spelling, and control characters in auth fields are refused before any lookup.
@Suite struct SecretsAndFilesTests {
    /// At `LOG_LEVEL=trace` (where swift-service-lifecycle prints each service) neither the admin key nor the
    /// custom-token secret appears in the log; the start banner on standard output shows the admin key, as it should.
    @Test func traceLogsHoldNoSecretsAndDataFilesAre0600() async throws {
        try await TemporaryDirectory.with("secrets") { directory in
            let adminKey = "admin-key-9f2c4e6a8b0d"
            let secret = "custom-token-secret-7d1e3f5a9c2b4d6e8f0a1b2c3d4e5f60"
            let configFile = directory.path("app.json")
            try Data("""
                { "app_id": "secret-app",
                  "auth": { "anonymous": { "enabled": true },
                            "custom_token": { "enabled": true, "signing_algorithm": "HS256", "signing_keys": ["\(secret)"] } },
                  "sync": { "mode": "flexible", "development_mode_enabled": true } }
                """.utf8).write(to: URL(fileURLWithPath: configFile))
            let data = directory.path("data")
            let server = try await OutpostServerProcess.launch(
                arguments: ["--port", "0", "--data-dir", data, "--config", configFile, "--admin-key", adminKey],
                environment: ["LOG_LEVEL": "trace"], capturesStandardError: true)
            #expect(try await server.client.post("/api/client/v2.0/app/secret-app/auth/providers/anon-user/login").status == 200)
            #expect(try await server.terminate() == 0)
            let lines = server.standardOutput.split(separator: "\n")
            #expect(lines.count > 5, "trace logging printed: \(server.standardOutput)")
            for line in lines where !line.hasPrefix("outpost-server listening on ") {
                #expect(!line.contains(adminKey), "\(line)")
                #expect(!line.contains(secret), "\(line)")
            }
            #expect(server.banner.contains(adminKey))

            // Every file the server made in its data directory is 0600.
            let files = try FileManager.default.contentsOfDirectory(atPath: data)
            #expect(files.contains("outpost.sqlite"))
            for file in files {
                let mode = try FileManager.default.attributesOfItem(atPath: "\(data)/\(file)")[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
            }
        }
    }

    /// The development app's `app.json` is written 0600 too.
    @Test func theDevelopmentAppFileIs0600() async throws {
        try await TemporaryDirectory.with("dev-app") { directory in
            _ = try AppDefinition.loadOrCreateDevelopment(in: directory.url)
            let mode = try FileManager.default.attributesOfItem(atPath: directory.path("app.json"))[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    /// A signature whose last character differs only in bits base64url does not use is refused: one token, one
    /// spelling.
    @Test func aTokenWithAlteredUnusedBitsIsRefused() async throws {
        try await withTestServer { server in
            let login = try await server.loginAnonymous()
            #expect(try await server.client.get(server.clientPath("auth/profile"), bearer: login.accessToken).status == 200)
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let last = try #require(login.accessToken.last)
            let index = try #require(alphabet.firstIndex(of: last))
            // An HS256 signature is 32 bytes: 43 characters whose last carries 2 unused low bits.
            var variants = 0
            for other in (index & ~3)...(index | 3) where other != index {
                let forged = String(login.accessToken.dropLast()) + String(alphabet[other])
                let response = try await server.client.get(server.clientPath("auth/profile"), bearer: forged)
                #expect(response.status == 401, "\(forged)")
                variants += 1
            }
            #expect(variants == 3)
        }
    }

    /// Control characters in an email, password, API key or token are refused with 400 before anything is looked
    /// up or stored, on both drivers: SQLite cut text at U+0000 (so `victim@example.com\0junk` logged in as the
    /// victim) and PostgreSQL refused it with 500.
    @Test(arguments: Driver.enabled)
    func controlCharactersInAuthFieldsAreRefused(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                #expect(try await server.register("victim@example.com", "secret123").status == 201)
                let cases: [(String, [String: JSONValue])] = [
                    ("auth/providers/local-userpass/login", ["username": "victim@example.com\u{0}junk", "password": "secret123"]),
                    ("auth/providers/local-userpass/login", ["username": "victim@example.com", "password": "secret123\u{0}"]),
                    ("auth/providers/local-userpass/register", ["email": "a\u{0}b@example.com", "password": "secret123"]),
                    ("auth/providers/local-userpass/register", ["email": "a\u{7}b@example.com", "password": "secret123"]),
                    ("auth/providers/api-key/login", ["key": "abc\u{0}def"]),
                    ("auth/providers/local-userpass/confirm", ["token": "t\u{0}", "tokenId": "id"]),
                    ("auth/providers/local-userpass/confirm/send", ["email": "victim@example.com\u{0}"]),
                    ("auth/providers/local-userpass/reset/send", ["email": "victim@example.com\u{1b}"]),
                    ("auth/providers/local-userpass/reset", ["token": "t", "tokenId": "id\u{0}", "password": "secret456"]),
                    ("auth/providers/local-userpass/reset", ["token": "t", "tokenId": "id", "password": "secret\u{0}456"]),
                ]
                for (endpoint, body) in cases {
                    let response = try await server.client.post(server.clientPath(endpoint), json: .object(body))
                    #expect(response.status == 400, "\(endpoint) \(body): \(response.status) \(response.text)")
                    #expect(response.text.contains("must not contain control characters"), "\(response.text)")
                }
                #expect(try await storage.user(appId: server.appId, provider: "local-userpass", identity: "a") == nil)
                // The victim's own login still works.
                _ = try await server.login("victim@example.com", "secret123")
            }
        }
    }
}
