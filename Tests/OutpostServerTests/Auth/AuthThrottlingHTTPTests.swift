import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Login throttling against a real server on 127.0.0.1, on every storage driver: the client address is 127.0.0.1.
@Suite struct AuthThrottlingHTTPTests {
    static func app(_ throttling: AppDefinition.Throttling) -> AppDefinition {
        var app = AppDefinition.development(appId: "test-app")
        app.auth.throttling = throttling
        return app
    }

    static func credentials(_ email: String, _ password: String) -> JSONValue {
        .object(["username": .string(email), "password": .string(password)])
    }

    @Test(arguments: Driver.enabled)
    func failedLoginsOfOneAccountAreThrottled(driver: Driver) async throws {
        let clock = TestClock()
        try await driver.withStorage { storage in
            try await withTestServer(
                configuration: Self.app(.init(failedLoginsPerAccount: 3)), storage: storage, clock: clock.now
            ) { server in
                #expect(try await server.register("alice@example.com", "right-password").status == 201)
                let wrong = Self.credentials("Alice@Example.com", "wrong-password")
                for _ in 0..<3 {
                    let response = try await server.loginResponse("local-userpass", wrong)
                    #expect(response.status == 401 && response.code == "invalidPassword")
                }
                let hashes = server.auth.passwordHasher.derivations
                let right = Self.credentials("alice@example.com", "right-password")
                let throttled = try await server.loginResponse("local-userpass", right)
                #expect(throttled.status == 429)
                #expect(throttled.headers["retry-after"] == "100")
                #expect(throttled.errorCode == "TooManyRequests" && throttled.code == "tooManyRequests")
                #expect(throttled["error"] == "too many failed logins for this account; try again later")
                #expect(try await server.loginResponse("local-userpass", wrong).status == 429)
                #expect(server.auth.passwordHasher.derivations == hashes, "a refused attempt runs no PBKDF2")

                let logs = try await server.storage.logs(
                    appId: server.appId, kind: "auth", since: nil, until: nil, limit: 100)
                let throttleLines = logs.filter { $0.message.hasPrefix("throttled") }
                #expect(throttleLines.count == 1, "one line per throttled key, however many refusals")
                #expect(throttleLines.first?.level == "warning")
                #expect(
                    throttleLines.first?.message
                        == "throttled local-userpass login of alice@example.com from 127.0.0.1: "
                        + "too many failed logins for this account; retry after 100 s")

                // Another account from the same address is not affected.
                #expect(try await server.register("bob@example.com", "bobs-password").status == 201)
                _ = try await server.login("bob@example.com", "bobs-password")

                clock.advance(by: 100)
                _ = try await server.login("alice@example.com", "right-password")
                // The success started the account afresh: three more failures before the next refusal.
                for _ in 0..<3 { #expect(try await server.loginResponse("local-userpass", wrong).status == 401) }
                #expect(try await server.loginResponse("local-userpass", right).status == 429)
            }
        }
    }

    @Test(arguments: Driver.enabled)
    func failedLoginsFromOneAddressAreThrottledWhateverTheAccount(driver: Driver) async throws {
        let clock = TestClock()
        try await driver.withStorage { storage in
            try await withTestServer(
                configuration: Self.app(.init(failedLoginsPerAccount: 100, failedLoginsPerAddress: 4)),
                storage: storage, clock: clock.now
            ) { server in
                #expect(try await server.register("carol@example.com", "carols-password").status == 201)
                let right = Self.credentials("carol@example.com", "carols-password")
                _ = try TestServer.login(from: await server.loginResponse("local-userpass", right))
                for i in 0..<4 {
                    let guess = Self.credentials("user\(i)@example.com", "guess-\(i)")
                    #expect(try await server.loginResponse("local-userpass", guess).status == 401)
                }
                let hashes = server.auth.passwordHasher.derivations
                let throttled = try await server.loginResponse("local-userpass", right)
                #expect(throttled.status == 429 && throttled.headers["retry-after"] == "75")
                #expect(throttled["error"] == "too many failed logins from this address; try again later")
                let apiKey = try await server.loginResponse(
                    "api-key", .object(["key": .string(String(repeating: "0", count: 88))]))
                #expect(apiKey.status == 429, "API key logins count against the address too")
                #expect(server.auth.passwordHasher.derivations == hashes)

                clock.advance(by: 75)
                _ = try TestServer.login(from: await server.loginResponse("local-userpass", right))
            }
        }
    }

    @Test(arguments: Driver.enabled)
    func newUsersFromOneAddressAreThrottled(driver: Driver) async throws {
        let clock = TestClock()
        try await driver.withStorage { storage in
            try await withTestServer(
                configuration: Self.app(.init(newUsersPerAddress: 3)), storage: storage, clock: clock.now
            ) { server in
                for _ in 0..<3 { _ = try await server.loginAnonymous() }
                let throttled = try await server.loginResponse("anon-user")
                #expect(throttled.status == 429 && throttled.headers["retry-after"] == "100")
                #expect(throttled.errorCode == "TooManyRequests")
                #expect(throttled["error"] == "too many new users from this address; try again later")
                let registration = try await server.register("dave@example.com", "daves-password")
                #expect(registration.status == 429, "registrations make users too")
                #expect(try await server.storage.users(appId: server.appId).count == 3)

                clock.advance(by: 100)
                _ = try await server.loginAnonymous()
                #expect(try await server.storage.users(appId: server.appId).count == 4)
            }
        }
    }

    @Test func throttlingCanBeTurnedOff() async throws {
        try await withTestServer(configuration: Self.app(.off)) { server in
            #expect(try await server.register("erin@example.com", "erins-password").status == 201)
            for _ in 0..<30 {
                let wrong = try await server.loginResponse("local-userpass", Self.credentials("erin@example.com", "no"))
                #expect(wrong.status == 401)
            }
            for _ in 0..<150 { _ = try await server.loginAnonymous() }
            _ = try await server.login("erin@example.com", "erins-password")
        }
    }

    /// An unknown email runs the same PBKDF2 work as a wrong password and gets the same answer, so neither the
    /// answer nor its timing tells which emails have accounts.
    @Test(arguments: Driver.enabled)
    func anUnknownEmailCostsTheSameHashingAsAWrongPassword(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                #expect(try await server.register("frank@example.com", "franks-password").status == 201)
                let hasher = server.auth.passwordHasher
                let start = hasher.derivations
                let wrong = try await server.loginResponse(
                    "local-userpass", Self.credentials("frank@example.com", "wrong-password"))
                let afterWrong = hasher.derivations
                let unknown = try await server.loginResponse(
                    "local-userpass", Self.credentials("nobody@example.com", "wrong-password"))
                let afterUnknown = hasher.derivations
                #expect(afterWrong - start == 1)
                #expect(afterUnknown - afterWrong == 1)
                #expect(wrong.status == 401 && unknown.status == 401)
                #expect(wrong.text == unknown.text)
            }
        }
    }
}
