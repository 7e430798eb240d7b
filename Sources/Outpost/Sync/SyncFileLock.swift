import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The lock that lets one process at a time sync a file (`<file>.sync.lock`, an advisory `flock`). Another process
/// that opens the same synced file works on it normally — its commits land in the file's upload queue — and its
/// session waits; when the syncing process closes (or dies: the kernel drops the lock), the waiting one takes over.
/// The original crashes in this situation ("multiple sync agents"); Outpost hands over instead.
final class SyncFileLock: @unchecked Sendable {
    let path: String
    private var descriptor: Int32 = -1
    private let lock = NSLock()

    init(realmPath: String) {
        path = realmPath + ".sync.lock"
    }

    /// A lock on any path (the event store locks the shard it writes to with `<shard>.lock`).
    init(lockPath: String) {
        path = lockPath
    }

    deinit { release() }

    /// Takes the lock if no other process (or other lock object) holds it; true when held.
    func tryAcquire() -> Bool {
        lock.withLock {
            if descriptor >= 0 { return true }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return false }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                close(fd)
                return false
            }
            descriptor = fd
            return true
        }
    }

    /// Releases the lock.
    func release() {
        lock.withLock {
            guard descriptor >= 0 else { return }
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    var isHeld: Bool { lock.withLock { descriptor >= 0 } }
}
