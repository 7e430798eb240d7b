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

    /// Waits for the writers that came earlier, then holds the lock.
    func lock() {
        condition.lock()
        let ticket = nextTicket
        nextTicket &+= 1
        while ticket != nowServing { condition.wait() }
        condition.unlock()
    }

    /// Whether a writer waits behind the one holding the lock.
    var hasWaiters: Bool {
        condition.lock()
        defer { condition.unlock() }
        return nextTicket &- nowServing > 1
    }

    /// Lets the next writer in.
    func unlock() {
        condition.lock()
        nowServing &+= 1
        condition.broadcast()
        condition.unlock()
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
