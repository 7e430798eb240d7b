import Foundation
import OutpostServerTesting
import Synchronization

/// The test-only `outpost-sync-probe` executable (Sources/outpost-sync-probe) as a child process: a sync client in
/// its own process, which a test can kill with SIGKILL. Its standard output is collected line by line.
final class SyncProbeProcess: Sendable {
    private let process: ChildProcess
    private let output = Mutex(Data())
    private let errors = Mutex(Data())
    private let outputEnded = Mutex(false)

    private init(process: ChildProcess) {
        self.process = process
    }

    /// Starts the probe against `server` with its users and files in `root`, committing `count` objects.
    static func launch(server: String, appId: String, root: URL, count: Int) throws -> SyncProbeProcess {
        try launch(arguments: ["--server", server, "--app", appId, "--root", root.path, "--count", "\(count)"])
    }

    /// Starts the probe with these arguments (see Sources/outpost-sync-probe).
    static func launch(arguments: [String]) throws -> SyncProbeProcess {
        let out = Pipe()
        let err = Pipe()
        let process = try ChildProcess(
            executable: try OutpostServerProcess.builtExecutableURL(named: "outpost-sync-probe"), arguments: arguments,
            standardOutput: out, standardError: err)
        let probe = SyncProbeProcess(process: process)
        PipeDrain.start(out.fileHandleForReading, name: "sync probe output",
                        onData: { data in probe.output.withLock { $0.append(data) } },
                        onEnd: { probe.outputEnded.withLock { $0 = true } })
        PipeDrain.start(err.fileHandleForReading, name: "sync probe errors") { data in
            probe.errors.withLock { $0.append(data) }
        }
        return probe
    }

    /// The complete lines printed so far.
    var lines: [String] {
        let text = output.withLock { String(decoding: $0, as: UTF8.self) }
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()  // an incomplete last line (or the empty string after the last newline)
        return lines
    }

    /// What the probe printed on standard error (its sync log and failures).
    var standardError: String { errors.withLock { String(decoding: $0, as: UTF8.self) } }

    /// The numbers of the `committed <n>` lines.
    var committedNumbers: [Int] {
        lines.compactMap { $0.hasPrefix("committed ") ? Int($0.dropFirst(10)) : nil }
    }

    /// The `local <count> <max>` lines.
    var localLines: [(count: Int, max: Int)] {
        lines.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "local", let count = Int(parts[1]), let max = Int(parts[2]) else { return nil }
            return (count, max)
        }
    }

    var isRunning: Bool { process.isRunning }

    /// Whether the exited process was ended by a signal (then `waitForExit` returns the signal's number).
    var terminatedBySignal: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }

    /// Polls until `condition` holds for the printed lines; throws when the probe exits first or time runs out.
    func waitUntil(timeout: Duration = testPatience, _ what: String, _ condition: ([String]) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(lines) {
            guard process.isRunning else {
                throw SyncTestTimeout(description: "the probe exited (\(process.terminationStatus)) before \(what); stderr:\n\(standardError)")
            }
            guard ContinuousClock.now < deadline else {
                throw SyncTestTimeout(description: "the probe did not reach \(what) within \(timeout); stderr:\n\(standardError)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits for the probe to exit and returns its status; kills it and throws after `timeout`.
    func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                await killAbruptly()
                throw SyncTestTimeout(description: "the probe did not exit within \(timeout); stderr:\n\(standardError)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        await waitForEndOfOutput()
        return process.terminationStatus
    }

    /// SIGKILL: the process dies at once, wherever it is.
    func killAbruptly() async {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
        await waitForEndOfOutput()
    }

    /// Waits (at most 2 s) until everything the exited process wrote to standard output has been read.
    private func waitForEndOfOutput() async {
        let deadline = ContinuousClock.now + .seconds(2)
        while !outputEnded.withLock({ $0 }) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
