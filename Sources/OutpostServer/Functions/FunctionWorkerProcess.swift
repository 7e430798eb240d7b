import Foundation
import OutpostCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One Node.js process running `function-worker.js`: JSON lines in on its stdin, JSON lines out on its stdout.
///
/// Its own process so that a function that loops, leaks or crashes takes only its worker down. It gets no
/// environment of the server's (database passwords stay out of functions' reach) beyond `PATH`, `HOME` and `LANG`.
/// Two threads read its stdout and stderr with blocking reads; what they read reaches ``next()``.
final class FunctionWorkerProcess: @unchecked Sendable {
    enum Event: Sendable {
        case message(JSONValue)
        /// The process ended (or its stdout closed); no more events follow.
        case ended
    }

    /// Why the server killed it, for the error of the call it was running.
    enum KillReason: Sendable { case timeLimit, cancelled, protocolViolation, shutdown }

    /// The longest line a worker may write: a result or service request larger than this ends the worker.
    static let maxLineBytes = 64 * 1024 * 1024
    static let stderrTailBytes = 8 * 1024

    private let process: Process
    private let stdin: FileHandle
    private let writeLock = Mutex(())
    private let stderrTail = TextTail()
    private let killReasonBox = Mutex<KillReason?>(nil)
    private let stream: AsyncStream<Event>
    // Only the call that holds the worker reads (see FunctionWorkerPool), so the iterator is never shared.
    private var iterator: AsyncStream<Event>.Iterator

    init(node: URL, script: URL, memoryLimitMB: Int) throws {
        Self.ignoreSIGPIPE
        let process = Process()
        process.executableURL = node
        process.arguments = ["--max-old-space-size=\(memoryLimitMB)", script.path]
        var environment: [String: String] = [:]
        let inherited = ProcessInfo.processInfo.environment
        for name in ["PATH", "HOME", "LANG"] { environment[name] = inherited[name] }
        process.environment = environment
        process.currentDirectoryURL = script.deletingLastPathComponent()
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        self.process = process
        self.stdin = input.fileHandleForWriting
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        self.stream = stream
        self.iterator = stream.makeAsyncIterator()
        // The reader threads own duplicates of the read ends and close them themselves, so no descriptor is closed
        // twice or while a read waits on it.
        let outFD = dup(output.fileHandleForReading.fileDescriptor)
        let errFD = dup(errors.fileHandleForReading.fileDescriptor)
        try? output.fileHandleForReading.close()
        try? errors.fileHandleForReading.close()
        let tail = stderrTail
        let pid = process.processIdentifier
        Thread.detachNewThread {
            let clean = Self.readLines(outFD) { line in
                guard let json = JSONValue.parse(line) else { return false }
                continuation.yield(.message(json))
                return true
            }
            if !clean { _ = killProcess(pid, SIGKILL) }  // a line too long or not JSON: the worker is broken
            process.waitUntilExit()
            continuation.yield(.ended)
            continuation.finish()
        }
        Thread.detachNewThread {
            Self.readChunks(errFD) { chunk in
                tail.text.withLock { text in
                    text += chunk
                    if text.utf8.count > Self.stderrTailBytes { text = String(text.suffix(Self.stderrTailBytes / 2)) }
                }
            }
        }
    }

    deinit { kill(.shutdown) }

    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// The next line the worker wrote, or `.ended`; nil after `.ended`.
    func next() async -> Event? { await iterator.next() }

    /// Writes one JSON line to the worker; false when it is gone.
    @discardableResult func send(_ json: JSONValue) -> Bool {
        var line = json.text
        line += "\n"
        return writeLock.withLock { _ in
            do {
                try stdin.write(contentsOf: Data(line.utf8))
                return true
            } catch {
                return false
            }
        }
    }

    /// Kills the process (SIGKILL: a function cannot catch it); the reader then reports `.ended`.
    func kill(_ reason: KillReason) {
        killReasonBox.withLock { if $0 == nil { $0 = reason } }
        if process.isRunning { _ = killProcess(process.processIdentifier, SIGKILL) }
    }

    var killReason: KillReason? { killReasonBox.withLock { $0 } }

    /// The end of what the worker wrote to stderr (V8's out-of-memory report lands here).
    var stderrText: String { stderrTail.text.withLock { $0 } }

    var isRunning: Bool { process.isRunning }

    /// Whether the process ran out of V8 heap (the `--max-old-space-size` limit).
    var diedOfMemory: Bool {
        let text = stderrText
        return text.contains("heap out of memory") || text.contains("Allocation failed")
    }

    // MARK: Reading

    /// Calls `line` for each newline-terminated line until end of file (true), or until a line is too long or
    /// `line` refuses it (false). Closes `fd`.
    private static func readLines(_ fd: Int32, _ line: (String) -> Bool) -> Bool {
        defer { close(fd) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            var start = 0
            for i in 0..<n where buffer[i] == UInt8(ascii: "\n") {
                pending.append(contentsOf: buffer[start..<i])
                start = i + 1
                if !line(String(decoding: pending, as: UTF8.self)) { return false }
                pending.removeAll(keepingCapacity: pending.count < 1 << 20)
            }
            pending.append(contentsOf: buffer[start..<n])
            if pending.count > maxLineBytes { return false }
        }
        return true
    }

    private static func readChunks(_ fd: Int32, _ chunk: (String) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            chunk(String(decoding: buffer[0..<n], as: UTF8.self))
        }
        close(fd)
    }
}

/// The end of a worker's stderr, shared with its reader thread.
private final class TextTail: Sendable {
    let text = Mutex("")
}

#if canImport(Glibc)
private func killProcess(_ pid: Int32, _ signal: Int32) -> Int32 { Glibc.kill(pid, signal) }
#elseif canImport(Darwin)
private func killProcess(_ pid: Int32, _ signal: Int32) -> Int32 { Darwin.kill(pid, signal) }
#endif
