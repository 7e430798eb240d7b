import NIOCore
import NIOPosix
import Synchronization

/// The threads PBKDF2 runs on: a few of its own, apart from Swift's cooperative pool and the NIO event loops, so
/// that a burst of logins queues here while every other request keeps its threads.
///
/// At most ``threads`` hashes run at once and at most ``maxQueued`` more wait; a hash beyond that is refused at once
/// with ``AuthError/Code/hashingBusy`` rather than growing the queue without bound.
public final class PasswordHashingPool: Sendable {
    /// The process's pool: half the cores (at least one), so hashing never takes the whole machine.
    public static let shared = PasswordHashingPool(threads: max(1, System.coreCount / 2), maxQueued: 64)

    public let threads: Int
    public let maxQueued: Int
    private let pool: NIOThreadPool
    /// Hashes running or waiting.
    private let jobs = Mutex(0)

    /// Starts `threads` threads. A pool other than ``shared`` should be ended with ``shutdown()``.
    public init(threads: Int, maxQueued: Int) {
        precondition(threads > 0 && maxQueued >= 0, "a hashing pool needs a thread and a non-negative queue")
        self.threads = threads
        self.maxQueued = maxQueued
        self.pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// The hashes running or waiting now.
    public var pendingJobs: Int { jobs.withLock { $0 } }

    /// Runs `work` on one of the pool's threads; the caller suspends until it is done.
    ///
    /// - Throws: ``AuthError/Code/hashingBusy`` when the queue is full; `CancellationError` when the task is
    ///   cancelled while waiting.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        let limit = threads + maxQueued
        let admitted = jobs.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw AuthError(.hashingBusy, "too many logins wait for password hashing; try again", retryAfterSeconds: 1)
        }
        defer { jobs.withLock { $0 -= 1 } }
        return try await pool.runIfActive(work)
    }

    /// Stops the threads once the queued work is done.
    public func shutdown() async throws {
        try await pool.shutdownGracefully()
    }
}
