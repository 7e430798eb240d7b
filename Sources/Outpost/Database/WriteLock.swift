import Foundation

/// The write lock of one Realm file inside this process: first come, first served.
///
/// SQLite lets one connection write at a time and makes the others wait in its busy handler, which sleeps for
/// growing intervals (up to 100 ms) and retries. A connection that commits back to back — an app writing in a loop —
/// takes the lock again long before a sleeping waiter looks, so the sync session's own writes (upload
/// acknowledgements, downloads) waited until the loop ended, and nothing was uploaded meanwhile. Write transactions
/// of one process on one file now queue here in arrival order, before `BEGIN IMMEDIATE`; SQLite's busy handler is
/// left to arbitrate between processes only.
final class WriteLock: @unchecked Sendable {
    private let condition = NSCondition()
    private var nextTicket: UInt64 = 0
    private var nowServing: UInt64 = 0
    /// Called once, on a writer's thread and outside the lock, when that writer has to wait: set by a holder that
    /// gives way to other writers (the sync session applying a bootstrap as it arrives rolls it back).
    private var onContention: (@Sendable () -> Void)?

    /// Waits for the writers that came earlier, then holds the lock.
    func lock() {
        condition.lock()
        let ticket = nextTicket
        nextTicket &+= 1
        if ticket != nowServing, let handler = onContention {
            onContention = nil
            condition.unlock()
            handler()
            condition.lock()
        }
        while ticket != nowServing { condition.wait() }
        condition.unlock()
    }

    /// Sets (or clears) the holder's contention handler (see `onContention`); when a writer waits already, the
    /// handler runs now instead.
    func setContentionHandler(_ handler: (@Sendable () -> Void)?) {
        condition.lock()
        let waiting = nextTicket &- nowServing > 1
        onContention = waiting ? nil : handler
        condition.unlock()
        if waiting { handler?() }
    }

    /// Tasks waiting for the lock to be free (``waitUntilFree()``), by waiter number.
    private var freeWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    private var nextWaiter: UInt64 = 0

    /// Returns once no writer of this process holds or waits for the lock (at once when none does), without blocking
    /// the caller's thread meanwhile: for `asyncWrite`, which then takes the lock as usual. Throws
    /// `CancellationError` when the task is cancelled while it waits.
    func waitUntilFree() async throws {
        let id = newWaiter()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                condition.lock()
                if Task.isCancelled {
                    condition.unlock()
                    continuation.resume(throwing: CancellationError())
                } else if nextTicket == nowServing {
                    condition.unlock()
                    continuation.resume()
                } else {
                    freeWaiters[id] = continuation
                    condition.unlock()
                }
            }
        } onCancel: {
            condition.lock()
            let waiter = freeWaiters.removeValue(forKey: id)
            condition.unlock()
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func newWaiter() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        nextWaiter &+= 1
        return nextWaiter
    }

    /// Writers waiting behind the holder. For tests.
    var waitingWriters: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return nextTicket &- nowServing &- 1
    }

    /// Lets the next writer in (the holder's contention handler ends with it).
    func unlock() {
        condition.lock()
        onContention = nil
        nowServing &+= 1
        condition.broadcast()
        var freed: [CheckedContinuation<Void, any Error>] = []
        if nextTicket == nowServing {
            freed = Array(freeWaiters.values)
            freeWaiters.removeAll()
        }
        condition.unlock()
        for continuation in freed { continuation.resume() }
    }

    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var locks: [String: WriteLock] = [:]

    /// The lock of the file at `path` (one per path for the life of the process).
    static func forFile(_ path: String) -> WriteLock {
        registryLock.withLock {
            if let lock = locks[path] { return lock }
            let lock = WriteLock()
            locks[path] = lock
            return lock
        }
    }
}
