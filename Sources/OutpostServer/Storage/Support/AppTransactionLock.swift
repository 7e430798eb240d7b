import Synchronization

/// Serialises transactions per app inside one process: `withLock(appId)` runs one body per app at a time, in
/// arrival order; bodies of different apps run concurrently.
///
/// Both drivers take it before they touch the database, so a transaction waiting for its app never holds a
/// connection (a PostgreSQL pool of 20 connections could otherwise fill with waiters while the running
/// transaction's body awaits a read that needs a connection of its own).
package final class AppTransactionLock: Sendable {
    private struct State {
        /// Apps with a running body, each with the continuations waiting for it, oldest first.
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    package func withLock<T>(_ appId: String, _ body: () async throws -> T) async throws -> T {
        await acquire(appId)
        defer { release(appId) }
        return try await body()
    }

    private func acquire(_ appId: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let runNow = state.withLock { state -> Bool in
                if state.waiters[appId] == nil {
                    state.waiters[appId] = []
                    return true
                }
                state.waiters[appId]!.append(continuation)
                return false
            }
            if runNow { continuation.resume() }
        }
    }

    private func release(_ appId: String) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard var queue = state.waiters[appId] else { return nil }
            if queue.isEmpty {
                state.waiters[appId] = nil
                return nil
            }
            let first = queue.removeFirst()
            state.waiters[appId] = queue
            return first
        }
        next?.resume()
    }
}
