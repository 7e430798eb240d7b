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

    /// With `OUTPOST_EXIT_WITH_PARENT=1` (what `OutpostServerProcess` sets), a server whose parent is killed shuts
    /// itself down; without it, it keeps running.
    @Test func exitsWhenItsParentIsKilledIfAskedTo() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = try OutpostServerProcess.executableURL().path

        /// Starts the server under a shell that prints its pid and waits; returns (shell, server pid).
        func launchUnderShell(exitWithParent: Bool, data: String) async throws -> (Process, pid_t) {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            let flag = exitWithParent ? "OUTPOST_EXIT_WITH_PARENT=1" : "OUTPOST_EXIT_WITH_PARENT=0"
            shell.arguments = ["-c", "\(flag) '\(binary)' --port 0 --data-dir '\(data)' >/dev/null 2>&1 & echo $!; wait"]
            let pipe = Pipe()
            shell.standardOutput = pipe
            try shell.run()
            var text = ""
            let deadline = ContinuousClock.now + .seconds(20)
            while !text.contains("\n"), ContinuousClock.now < deadline {
                text += String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
            }
            let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
            try await Task.sleep(for: .seconds(2))  // let it start and note its parent
            return (shell, pid)
        }
        /// Whether a process is running (not gone, not a zombie).
        func isRunning(_ pid: pid_t) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(close, offsetBy: 2)] != "Z"
        }
        func stops(_ pid: pid_t, within: Duration) async throws -> Bool {
            let deadline = ContinuousClock.now + within
            while ContinuousClock.now < deadline {
                if !isRunning(pid) { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return !isRunning(pid)
        }

        let (shell, server) = try await launchUnderShell(exitWithParent: true, data: directory.appendingPathComponent("a").path)
        #expect(isRunning(server))
        kill(shell.processIdentifier, SIGKILL)
        #expect(try await stops(server, within: .seconds(15)), "the orphaned server shut down")

        let (otherShell, kept) = try await launchUnderShell(exitWithParent: false, data: directory.appendingPathComponent("b").path)
        kill(otherShell.processIdentifier, SIGKILL)
        #expect(!(try await stops(kept, within: .seconds(3))), "without the variable the server keeps running")
        kill(kept, SIGTERM)
        #expect(try await stops(kept, within: .seconds(15)))
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
