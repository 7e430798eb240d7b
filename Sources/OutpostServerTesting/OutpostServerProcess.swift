import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `outpost-server` executable, started as a child process for end-to-end tests.
///
/// ```swift
/// let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", dir.path])
/// let health = try await server.client.get("/health")
/// #expect(try await server.terminate() == 0)   // SIGTERM, graceful exit
/// ```
public final class OutpostServerProcess: Sendable {
    private let process: ChildProcess
    private let output: OutputBuffer
    /// The bound port (parsed from the start-up line).
    public let port: Int
    /// The child's process id (for example to read its memory use from `/proc`).
    public var processIdentifier: Int32 { process.processIdentifier }
    /// The start-up line, like `outpost-server listening on http://127.0.0.1:9090 — app id: outpost-dev — …`.
    public let banner: String

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var client: TestHTTPClient { TestHTTPClient(baseURL: baseURL) }
    /// Everything the process printed to standard output so far (and to standard error, when captured).
    public var standardOutput: String { output.text }

    private init(process: ChildProcess, output: OutputBuffer, port: Int, banner: String) {
        self.process = process
        self.output = output
        self.port = port
        self.banner = banner
    }

    /// The built `outpost-server` binary: `$OUTPOST_SERVER_BINARY`, or the one next to the test bundle (SwiftPM puts
    /// executables and the test bundle in the same build directory), or `.build/debug/outpost-server`.
    public static func executableURL() throws -> URL {
        try builtExecutableURL(named: "outpost-server", environmentVariable: "OUTPOST_SERVER_BINARY")
    }

    /// A built executable of this package (for example `outpost-sync-probe`): `$<environmentVariable>` when set,
    /// or the one next to the test bundle, or `.build/debug/<name>`.
    public static func builtExecutableURL(named name: String, environmentVariable: String? = nil) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [URL] = []
        if let variable = environmentVariable, let path = environment[variable] {
            candidates.append(URL(fileURLWithPath: path))
        }
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(argv0.deletingLastPathComponent().appendingPathComponent(name))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(name))
        candidates.append(URL(fileURLWithPath: ".build/debug/\(name)"))
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        throw TestServerError("cannot find the \(name) binary (tried \(candidates.map(\.path))); run `swift build` first")
    }

    /// Starts `outpost-server` with `arguments` (pass `--port 0` for a random port), waits for its start-up line
    /// and until `GET /health` answers 200.
    ///
    /// - Parameters:
    ///   - environment: variables set for the server on top of this process's (`LOG_LEVEL`, …).
    ///   - capturesStandardError: standard error goes into ``standardOutput`` too (it is inherited otherwise).
    public static func launch(
        arguments: [String], environment: [String: String] = [:], capturesStandardError: Bool = false,
        timeout: Duration = .seconds(60)
    ) async throws -> OutpostServerProcess {
        let pipe = Pipe()
        // The server ends itself if this process dies without stopping it (a crashed or killed test run).
        let process = try ChildProcess(
            executable: try executableURL(), arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }
                .merging(["OUTPOST_EXIT_WITH_PARENT": "1"]) { $1 },
            standardOutput: pipe, standardError: capturesStandardError ? pipe : nil)
        let output = OutputBuffer()
        PipeDrain.start(pipe.fileHandleForReading, name: "outpost-server output") { output.append($0) }
        let deadline = ContinuousClock.now + timeout
        var banner: String?
        while banner == nil {
            banner = output.text.split(separator: "\n").first { $0.contains("listening on http://") }.map(String.init)
            if banner != nil { break }
            guard process.isRunning else {
                throw TestServerError("outpost-server exited (\(process.terminationStatus)) before listening")
            }
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw TestServerError("outpost-server did not print its start-up line in time")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let banner, let port = Self.port(in: banner) else {
            process.terminate()
            throw TestServerError("cannot read the port from the start-up line")
        }
        let server = OutpostServerProcess(process: process, output: output, port: port, banner: banner)
        try await server.waitUntilHealthy(deadline: deadline)
        return server
    }

    static func port(in banner: String) -> Int? {
        guard let range = banner.range(of: "http://") else { return nil }
        let address = banner[range.upperBound...].prefix { !$0.isWhitespace }
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...])
    }

    private func waitUntilHealthy(deadline: ContinuousClock.Instant) async throws {
        while true {
            if let response = try? await client.get("/health"), response.status == 200 { return }
            guard process.isRunning, ContinuousClock.now < deadline else {
                _ = try? await terminate()
                throw TestServerError("outpost-server never answered /health")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Whether the process is still running.
    public var isRunning: Bool { process.isRunning }

    /// Sends SIGTERM and waits for the process to exit; returns its exit status (0 after a graceful shutdown).
    /// Throws when it does not exit within `timeout` (it is then killed) or was ended by a signal.
    @discardableResult
    public func terminate(timeout: Duration = .seconds(30)) async throws -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                let last = output.text.split(separator: "\n").suffix(20).joined(separator: "\n")
                throw TestServerError("outpost-server did not exit within \(timeout) of SIGTERM; its last output:\n\(last)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard process.terminationReason == .exit else {
            throw TestServerError("outpost-server was ended by signal \(process.terminationStatus)")
        }
        return process.terminationStatus
    }

    /// Sends SIGKILL — an abrupt crash: no graceful shutdown, nothing flushed — and waits until the process is gone.
    public func killAbruptly(timeout: Duration = .seconds(10)) async throws {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                throw TestServerError("outpost-server did not exit within \(timeout) of SIGKILL")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// What a child process printed, collected from its pipe's reading thread.
final class OutputBuffer: Sendable {
    private let storage = Mutex("")

    var text: String { storage.withLock { $0 } }

    func append(_ data: Data) {
        storage.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }
}
