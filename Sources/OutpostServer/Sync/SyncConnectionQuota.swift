import Synchronization

/// The open sync connections of each user, so that one user cannot hold more than `limit` of them (each may buffer
/// a message of up to ``SyncRoutes/maxMessageSize`` while it arrives).
final class SyncConnectionQuota: Sendable {
    let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes one of the user's connections; false when they already have `limit`.
    func reserve(_ userId: String) -> Bool {
        counts.withLock { counts in
            let count = counts[userId, default: 0]
            guard count < limit else { return false }
            counts[userId] = count + 1
            return true
        }
    }

    /// Gives back a connection taken with ``reserve(_:)``.
    func release(_ userId: String) {
        counts.withLock { counts in
            let count = counts[userId, default: 0] - 1
            counts[userId] = count > 0 ? count : nil
        }
    }

    /// The user's open connections.
    func count(_ userId: String) -> Int {
        counts.withLock { $0[userId, default: 0] }
    }
}
