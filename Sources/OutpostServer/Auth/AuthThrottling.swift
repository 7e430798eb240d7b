import Foundation
import Synchronization

/// The app's ``AuthThrottle``s (per account, per client address, new users per address) behind one lock, shared by
/// the copies of ``AuthService``. An attempt spends from all its keys or from none, so a refused attempt costs no
/// budget and concurrent attempts can never overspend.
final class AuthThrottling: Sendable {
    /// Which limit a key counts against.
    enum Limit: String, Sendable, CaseIterable {
        /// Failed email/password logins of one account.
        case account
        /// Failed logins from one client address.
        case address
        /// Anonymous logins and registrations from one client address.
        case newUsers
    }

    struct Key: Hashable, Sendable {
        var limit: Limit
        var name: String
    }

    /// Why an attempt was refused.
    struct Refusal: Sendable, Hashable {
        var limit: Limit
        var retryAfterSeconds: Int
        /// The first refusal of this key since it last spent (the one worth a log line).
        var isFirst: Bool
    }

    private let throttles: Mutex<[Limit: AuthThrottle]>

    init(_ settings: AppDefinition.Throttling) {
        let window = TimeInterval(settings.windowSeconds)
        var throttles: [Limit: AuthThrottle] = [:]
        for (limit, burst) in [
            (Limit.account, settings.failedLoginsPerAccount), (.address, settings.failedLoginsPerAddress),
            (.newUsers, settings.newUsersPerAddress),
        ] where burst > 0 {
            throttles[limit] = AuthThrottle(burst: burst, window: window, capacity: settings.trackedKeys)
        }
        self.throttles = Mutex(throttles)
    }

    /// Spends one attempt of every key, or none and returns the refusal with the longest wait. Keys of a limit that
    /// is off are ignored.
    func spend(_ keys: [Key], now: Date) -> Refusal? {
        throttles.withLock { throttles in
            var refusal: Refusal?
            for key in keys {
                guard let wait = throttles[key.limit]?.retryAfter(key.name, now: now) else { continue }
                let isFirst = throttles[key.limit]!.reportRefusal(key.name, now: now)
                if let earlier = refusal, earlier.retryAfterSeconds >= wait {
                    refusal?.isFirst = earlier.isFirst || isFirst
                } else {
                    let anyFirst = isFirst || refusal?.isFirst == true
                    refusal = Refusal(limit: key.limit, retryAfterSeconds: wait, isFirst: anyFirst)
                }
            }
            if refusal == nil {
                for key in keys { throttles[key.limit]?.spend(key.name, now: now) }
            }
            return refusal
        }
    }

    /// Gives back the attempts of `keys` (the attempt did not fail on its credentials).
    func refund(_ keys: [Key], now: Date) {
        throttles.withLock { throttles in
            for key in keys { throttles[key.limit]?.refund(key.name, now: now) }
        }
    }

    /// Starts `key` afresh (a successful login of the account).
    func reset(_ key: Key) {
        throttles.withLock { throttles in throttles[key.limit]?.reset(key.name) }
    }
}
