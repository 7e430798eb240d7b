import Foundation
import OutpostCore
import OutpostServerTesting
import Testing

@testable import OutpostServer

/// `auth.email_password.token_webhook_url`: confirmation and password reset tokens go to the app's own service (to
/// mail them) instead of the server log.
@Suite(.timeLimit(.minutes(3))) struct TokenWebhookTests {
    private func app(_ webhook: String) throws -> AppDefinition {
        try AppDefinition(jsonText: """
            {"app_id": "webhook-app", "auth": {"email_password": {"enabled": true, "auto_confirm": false,
                                                                   "token_webhook_url": "\(webhook)"}}}
            """)
    }

    /// The webhook's deliveries, once `count` arrived.
    private func deliveries(_ hook: StaticJSONServer, _ count: Int) async throws -> [[String: JSONValue]] {
        let deadline = ContinuousClock.now + .seconds(60)
        while hook.posted.count < count && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return hook.posted.compactMap { JSONValue.parse($0)?.objectValue }
    }

    @Test func confirmationAndResetTokensGoToTheWebhook() async throws {
        try await StaticJSONServer.with(path: "/tokens", body: "{}") { hook in
            try await withTestServer(configuration: try app(hook.url)) { server in
                #expect(try await server.register("ann@example.com", "hunter22").status == 201)
                let confirmation = try #require(try await deliveries(hook, 1).first)
                #expect(confirmation["type"] == .string("confirmation") && confirmation["email"] == .string("ann@example.com"))
                #expect(confirmation["app_id"] == .string("webhook-app"))
                let confirmed = try await server.client.post(
                    server.clientPath("auth/providers/local-userpass/confirm"),
                    json: .object(["token": confirmation["token"]!, "tokenId": confirmation["tokenId"]!]))
                #expect(confirmed.status == 200)

                let sent = try await server.client.post(server.clientPath("auth/providers/local-userpass/reset/send"),
                                                        json: .object(["email": "ann@example.com"]))
                #expect(sent.status == 200)
                let reset = try #require(try await deliveries(hook, 2).last)
                #expect(reset["type"] == .string("reset"))
                let changed = try await server.client.post(server.clientPath("auth/providers/local-userpass/reset"), json: .object([
                    "token": reset["token"]!, "tokenId": reset["tokenId"]!, "password": "correct-horse"]))
                #expect(changed.status == 200)
                _ = try await server.login("ann@example.com", "correct-horse")

                // The log says where the tokens went, never the tokens.
                let deadline = ContinuousClock.now + .seconds(60)
                var logs: [LogRecord] = []
                while ContinuousClock.now < deadline {
                    logs = try await server.storage.logs(appId: server.appId, kind: "auth", since: nil, until: nil, limit: 100)
                    if logs.filter({ $0.message.contains("sent to the token webhook") }).count == 2 { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(logs.filter { $0.message.contains("sent to the token webhook") }.count == 2)
                let tokens = [confirmation["token"], reset["token"]].compactMap { $0?.stringValue }
                #expect(!logs.contains { record in tokens.contains { record.message.contains($0) } })
            }
        }
    }

    @Test func aFailingWebhookIsLogged() async throws {
        try await StaticJSONServer.with(path: "/tokens", body: "{}") { hook in
            hook.status = 503
            try await withTestServer(configuration: try app(hook.url)) { server in
                #expect(try await server.register("bo@example.com", "hunter22").status == 201)
                let deadline = ContinuousClock.now + .seconds(60)
                var found = false
                while !found && ContinuousClock.now < deadline {
                    let logs = try await server.storage.logs(appId: server.appId, kind: "auth", since: nil, until: nil, limit: 100)
                    found = logs.contains { $0.level == "error" && $0.message.contains("answered 503 to the confirmation token") }
                    if !found { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(found)
            }
        }
    }

    @Test func aWebhookMustBeHTTPSOrLoopback() {
        #expect {
            _ = try app("http://mail.example.com/tokens")
        } throws: { error in
            "\(error)".hasPrefix("auth.email_password.token_webhook_url: expected an https URL")
        }
    }

    @Test func theWebhookSurvivesWritingTheFile() throws {
        let configuration = try app("https://mail.example.com/tokens")
        #expect(configuration.auth.emailPasswordTokenWebhook == "https://mail.example.com/tokens")
        #expect(try AppDefinition(jsonText: configuration.jsonText) == configuration)
    }
}
