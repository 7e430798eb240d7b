import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct HealthAndMetricsTests {
    @Test func health() async throws {
        try await withTestServer { server in
            let response = try await server.client.get("/health")
            #expect(response.status == 200)
            #expect(response.json == .object(["status": "ok"]))
        }
    }

    @Test func metricsCountRequestsLoginsAndErrors() async throws {
        try await withTestServer { server in
            _ = try await server.loginAnonymous()
            _ = try await server.client.get(server.clientPath("auth/profile"))
            let metrics = try await server.client.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains("# TYPE outpost_http_requests_total counter"))
            #expect(metrics.text.contains(#"outpost_logins_total{provider="anon-user"}"#))
            #expect(metrics.text.contains(#"outpost_errors_total{code="missingToken"}"#))
            #expect(metrics.text.contains(#"status="401""#))
        }
    }

    @Test func locationEndpoint() async throws {
        try await withTestServer { server in
            let response = try await server.client.get(server.clientPath("location"))
            #expect(response.status == 200)
            #expect(response["hostname"] == server.baseURL)
            #expect(response["ws_hostname"] == "ws://127.0.0.1:\(server.port)")
        }
    }
}
