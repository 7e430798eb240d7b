import Foundation

/// A token bucket per key (an account, a client address): a key may spend ``burst`` attempts at once, and attempts
/// come back at ``burst`` per ``window``, so a key never gets more than one window's worth plus the refill. The time
/// is a parameter of every call, so tests move it by hand.
///
/// Memory is bounded: at most ``capacity`` keys are tracked, in two generations of `capacity / 2`. When the current
/// generation is full the older one is dropped, and its keys start again with a full bucket; a key used again
/// moves to the current generation. A bucket that refilled completely is the same as an untracked key, so only the
/// keys of recent failures matter.
struct AuthThrottle: Sendable {
    /// Attempts a key may spend at once.
    let burst: Int
    /// The time in which a spent bucket refills completely, in seconds.
    let window: TimeInterval
    /// The most keys tracked.
    let capacity: Int
    private var current: [String: Bucket] = [:]
    private var previous: [String: Bucket] = [:]

    private struct Bucket {
        var tokens: Double
        var updated: Date
        /// Whether a refusal since the last spend was reported (so a flood of refused attempts logs one line).
        var refusalReported = false
    }

    init(burst: Int, window: TimeInterval, capacity: Int) {
        precondition(burst > 0 && window > 0 && capacity >= 2, "a throttle needs a burst, a window and room for keys")
        self.burst = burst
        self.window = window
        self.capacity = capacity
    }

    /// The keys tracked now (at most ``capacity``).
    var trackedKeys: Int { current.count + previous.count }

    /// Whole seconds until `key` may spend an attempt, or nil when it may now.
    func retryAfter(_ key: String, now: Date) -> Int? {
        guard let bucket = refilled(key, now: now), bucket.tokens < 1 else { return nil }
        return max(1, Int(((1 - bucket.tokens) * window / Double(burst)).rounded(.up)))
    }

    /// Spends one attempt of `key` (callers check ``retryAfter(_:now:)`` first).
    mutating func spend(_ key: String, now: Date) {
        var bucket = refilled(key, now: now) ?? Bucket(tokens: Double(burst), updated: now)
        bucket.tokens = max(0, bucket.tokens - 1)
        bucket.refusalReported = false
        store(bucket, for: key)
    }

    /// Gives back an attempt that turned out not to count (a login that succeeded, or failed for another reason).
    mutating func refund(_ key: String, now: Date) {
        guard var bucket = refilled(key, now: now) else { return }
        bucket.tokens = min(Double(burst), bucket.tokens + 1)
        store(bucket, for: key)
    }

    /// Forgets `key`: its bucket is full again.
    mutating func reset(_ key: String) {
        current[key] = nil
        previous[key] = nil
    }

    /// Notes a refusal of `key`; true for the first since its last spend (the one worth a log line).
    mutating func reportRefusal(_ key: String, now: Date) -> Bool {
        guard var bucket = refilled(key, now: now), !bucket.refusalReported else { return false }
        bucket.refusalReported = true
        store(bucket, for: key)
        return true
    }

    /// The bucket of `key`, refilled up to `now`; nil when untracked.
    private func refilled(_ key: String, now: Date) -> Bucket? {
        guard var bucket = current[key] ?? previous[key] else { return nil }
        let elapsed = max(0, now.timeIntervalSince(bucket.updated))
        bucket.tokens = min(Double(burst), bucket.tokens + elapsed * Double(burst) / window)
        bucket.updated = max(bucket.updated, now)
        return bucket
    }

    private mutating func store(_ bucket: Bucket, for key: String) {
        previous[key] = nil
        if current[key] == nil, current.count >= capacity / 2 {
            previous = current
            current = [:]
        }
        current[key] = bucket
    }
}
