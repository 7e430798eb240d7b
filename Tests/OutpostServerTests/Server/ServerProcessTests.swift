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
        func launchUnderShell(exitWithParent: Bool, data: String) async throws -> (ChildProcess, pid_t) {
            let flag = exitWithParent ? "OUTPOST_EXIT_WITH_PARENT=1" : "OUTPOST_EXIT_WITH_PARENT=0"
            let pipe = Pipe()
            let shell = try ChildProcess(
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", "\(flag) '\(binary)' --port 0 --data-dir '\(data)' >/dev/null 2>&1 & echo $!; wait"],
                standardOutput: pipe)
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

    /// A sync client that stops reading its socket (it never answers the server's close frame) holds a graceful
    /// shutdown up for a bounded time only: the server closes such connections itself and exits with 0.
    @Test func aClientThatNeverAnswersDoesNotHoldUpShutdown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-proc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.path])
        let login = try await server.client.post("/api/client/v2.0/app/outpost-dev/auth/providers/anon-user/login")
        let token = try #require(login["access_token"])
        let socket = try StalledWebSocket(port: server.port, path: "/api/client/v2.0/app/outpost-dev/realm-sync",
                                          token: token)
        defer { socket.close() }
        #expect(socket.response.hasPrefix("HTTP/1.1 101"), "upgraded: \(socket.response)")
        let started = ContinuousClock.now
        let status = try await server.terminate(timeout: .seconds(60))
        let took = ContinuousClock.now - started
        #expect(status == 0)
        #expect(took < .seconds(OutpostServerApplication.connectionShutdownGrace + 10), "shut down in \(took)")
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

/// A raw TCP connection that upgrades to a WebSocket and then neither reads nor writes again.
struct StalledWebSocket {
    let fd: Int32
    let response: String

    init(port: Int, path: String, token: String) throws {
        let fd = try LoopbackSocket.connect(port: port)
        self.fd = fd
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Authorization: Bearer \(token)\r\n\r\n"
        let bytes = Array(request.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else { throw TestFailure("write failed") }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1)
        // One byte at a time up to the end of the headers, so nothing after them is read.
        while !received.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard Glibc.read(fd, &buffer, 1) == 1 else { break }
            received.append(buffer[0])
        }
        response = String(decoding: received, as: UTF8.self)
    }

    func close() { _ = Glibc.close(fd) }
}
