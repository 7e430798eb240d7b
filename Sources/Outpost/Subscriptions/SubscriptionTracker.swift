import Foundation

/// The states of one file's subscription sets, shared by every Realm instance of the file in the process and by its
/// sync session, with the callbacks waiting for a version to finish.
final class SubscriptionTracker: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [Int64: SubscriptionSetState] = [:]
    private var waiters: [Int64: [(SubscriptionSetState) -> Void]] = [:]

    /// The state of a version, if known.
    func state(_ version: Int64) -> SubscriptionSetState? {
        lock.withLock { states[version] }
    }

    /// Loads states read from the file (without overriding newer ones set in this process).
    func load(_ stored: [Int64: SubscriptionSetState]) {
        lock.withLock {
            for (v, s) in stored where states[v] == nil { states[v] = s }
        }
    }

    /// Takes the finished states the file holds (`stored`, every stored version): another process that syncs the
    /// file finishes sets this process waits for. A waited-for version no longer stored, older than the newest
    /// stored one, was superseded and deleted. Finished waiters are called.
    func refresh(from stored: [Int64: SubscriptionSetState]) {
        let newest = stored.keys.max() ?? 0
        var ready: [((SubscriptionSetState) -> Void, SubscriptionSetState)] = []
        lock.withLock {
            for (v, s) in stored where s.isFinished {
                switch states[v] {
                case .superseded?, .error?: continue  // final
                default: states[v] = s
                }
            }
            // Not stored, older than the newest: deleted when a newer set completed.
            for (v, s) in states where stored[v] == nil && v < newest {
                if case .error = s { continue }
                states[v] = .superseded
            }
            for v in waiters.keys where states[v] == nil && stored[v] == nil && v < newest { states[v] = .superseded }
            for (v, list) in waiters {
                guard let s = states[v], s.isFinished else { continue }
                ready += list.map { ($0, s) }
                waiters[v] = nil
            }
        }
        for (callback, s) in ready { callback(s) }
    }

    /// Sets a version's state; a completed version supersedes every older one. Finished waiters are called.
    func set(_ version: Int64, _ state: SubscriptionSetState) {
        var ready: [((SubscriptionSetState) -> Void, SubscriptionSetState)] = []
        lock.withLock {
            states[version] = state
            if state == .complete {
                for (v, s) in states where v < version && s != .superseded {
                    if case .error = s { continue }
                    states[v] = .superseded
                }
            }
            for (v, list) in waiters {
                guard let s = states[v], s.isFinished else { continue }
                ready += list.map { ($0, s) }
                waiters[v] = nil
            }
        }
        for (callback, s) in ready { callback(s) }
    }

    /// Calls `callback` once `version` is complete, superseded or failed (at once if it already is).
    func wait(_ version: Int64, _ callback: @escaping (SubscriptionSetState) -> Void) {
        let now: SubscriptionSetState? = lock.withLock {
            if let s = states[version], s.isFinished { return s }
            waiters[version, default: []].append(callback)
            return nil
        }
        if let now { callback(now) }
    }

    /// Fails every waiter (the session ended for good).
    func failAll(_ message: String) {
        let all: [(SubscriptionSetState) -> Void] = lock.withLock {
            let list = waiters.values.flatMap { $0 }
            waiters.removeAll()
            return list
        }
        for callback in all { callback(.error(message)) }
    }
}
