import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run executables (`outpost-server`, the sync probe, the
/// demo). Outpost-only test support.
///
/// Foundation's `Process.run()` on Linux crashes now and then (swift-corelibs-foundation #5472, fixed after Swift
/// 6.3.1): to find the descriptors to close in the child it lists `/proc/self/fd` and copies each entry's whole
/// 256-byte name, reading past the end of glibc's buffer when the next page is unmapped. It crashed a CI run of this
/// suite. This launcher closes every descriptor above 2 in the child with `posix_spawn_file_actions_addclosefrom_np`
/// (glibc 2.34), so that no socket or file of the test process leaks into it, and starts it with the default signal
/// dispositions and an empty signal mask (as `Process` does: a child must answer `SIGTERM`).
public final class ChildProcess: @unchecked Sendable {  // the status is behind `lock`
    public let processIdentifier: Int32
    private let lock = NSLock()
    /// The `waitpid` status, once the child is reaped.
    private var status: Int32?

    /// Starts `executable` with `environment` (this process's by default). Standard output and standard error go to
    /// the writing ends of the given pipes (which this process then closes), or are inherited when nil.
    public init(executable: URL, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                standardOutput: Pipe? = nil, standardError: Pipe? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardOutput {
            posix_spawn_file_actions_adddup2(&actions, standardOutput.fileHandleForWriting.fileDescriptor, 1)
        }
        if let standardError {
            posix_spawn_file_actions_adddup2(&actions, standardError.fileHandleForWriting.fileDescriptor, 2)
        }
        guard let closeFrom = Self.addCloseFrom else {
            throw TestServerError("posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later is needed)")
        }
        closeFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let path = executable.path
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        try? standardOutput?.fileHandleForWriting.close()
        try? standardError?.fileHandleForWriting.close()
        guard result == 0 else {
            throw TestServerError("cannot start \(path): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
    }

    deinit {
        // Reaps the child if it ended (no zombie left behind); a child still running is left alone.
        _ = isRunning
    }

    /// Whether the child is still running (it is reaped, and its status kept, once it has ended).
    public var isRunning: Bool {
        lock.withLock {
            guard status == nil else { return false }
            var value: Int32 = 0
            let reaped = waitpid(processIdentifier, &value, WNOHANG)
            if reaped == processIdentifier {
                status = value
                return false
            }
            if reaped < 0 {
                status = 0  // not our child any more (reaped elsewhere): it has ended
                return false
            }
            return true
        }
    }

    /// How the child ended: by exiting or by a signal (valid once `isRunning` is false).
    public var terminationReason: Process.TerminationReason {
        let value = lock.withLock { status ?? 0 }
        return value & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// The exit status, or the signal that ended the child (valid once `isRunning` is false).
    public var terminationStatus: Int32 {
        let value = lock.withLock { status ?? 0 }
        return value & 0x7f == 0 ? (value >> 8) & 0xff : value & 0x7f
    }

    /// Blocks until the child has ended, and reaps it.
    public func waitUntilExit() {
        lock.withLock {
            guard status == nil else { return }
            var value: Int32 = 0
            while waitpid(processIdentifier, &value, 0) < 0 && errno == EINTR {}
            status = value
        }
    }

    /// Sends `SIGTERM`.
    public func terminate() {
        if isRunning { kill(processIdentifier, SIGTERM) }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np`, which the Glibc module does not declare.
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()
}
