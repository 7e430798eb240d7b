import Foundation
import OutpostServer
import OutpostServerTesting
import Testing

/// The real `outpost-server` executable, as users run it.
@Suite struct ServerProcessTests {
    @Test func startsWithDefaultsAnswersHealthAndStopsGracefullyOnSIGTERM() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-proc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.path])
        #expect(server.banner.hasPrefix("outpost-server listening on http://127.0.0.1:\(server.port) — app id: outpost-dev — admin key: "))
        let health = try await server.client.get("/health")
        #expect(health.status == 200 && health.text == #"{"status":"ok"}"#)
        let login = try await server.client.post("/api/client/v2.0/app/outpost-dev/auth/providers/anon-user/login")
        #expect(login.status == 200)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("signing-key").path))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("app.json").path))
        #expect(try await server.terminate() == 0)
    }

    @Test func rejectsABadConfigurationFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("app.json")
        try Data(#"{"app_id": "x", "sync": {"mode": "partition"}}"#.utf8).write(to: config)
        await #expect(throws: TestServerError.self) {
            try await OutpostServerProcess.launch(
                arguments: ["--port", "0", "--data-dir", directory.path, "--config", config.path],
                timeout: .seconds(20))
        }
    }
}
