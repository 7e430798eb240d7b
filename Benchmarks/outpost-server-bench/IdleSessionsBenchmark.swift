import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting

/// Opens `sessions` bound, idle sync sessions (one WebSocket each) on a separate `outpost-server` process and
/// reports the growth of the server's resident memory per session.
enum IdleSessionsBenchmark {
    static func run(sessions: Int) async throws -> (perSessionKiB: Double, beforeKiB: Int, afterKiB: Int) {
        let directory = try TemporaryDirectory("idle")
        defer { directory.remove() }
        // Every session is the same user here: lift the per-user connection cap.
        let server = try await OutpostServerProcess.launch(arguments: [
            "--port", "0", "--data-dir", directory.path("data"), "--max-sync-connections-per-user", "100000"])
        let login = try await server.client.post("/api/client/v2.0/app/outpost-dev/auth/providers/anon-user/login")
        guard let token = login["access_token"] else { throw TestServerError(login.text) }
        let url = "ws://127.0.0.1:\(server.port)/api/client/v2.0/app/outpost-dev/realm-sync"
        // Warm up one session so one-time allocations are not counted.
        let warm = try await SyncTestClient.connect(url: url, accessToken: token)
        try await FanOutBenchmark.subscribe(warm)
        try await Task.sleep(for: .milliseconds(500))
        let before = Stats.residentKiB(pid: server.processIdentifier) ?? 0
        var clients: [SyncTestClient] = []
        for _ in 0..<sessions {
            let client = try await SyncTestClient.connect(url: url, accessToken: token)
            try await FanOutBenchmark.subscribe(client)
            clients.append(client)
        }
        try await Task.sleep(for: .seconds(1))
        let after = Stats.residentKiB(pid: server.processIdentifier) ?? 0
        for client in clients + [warm] { await client.close() }
        _ = try await server.terminate()
        return (Double(after - before) / Double(sessions), before, after)
    }
}
