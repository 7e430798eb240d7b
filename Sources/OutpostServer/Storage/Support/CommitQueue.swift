import OutpostCore
import Synchronization

/// Transactions whose bodies have run and whose writes are being committed, per app, oldest first: the SQLite
/// driver's pipeline (docs/storage-server.md, "Pipelined commits").
///
/// A transaction body runs under the app's ``AppTransactionLock``; its writes are then queued here, handed to the
/// database's single writer, and the lock is released, so the app's next body runs while the writes commit. That
/// body reads through the queue (``documents(appId:collection:keys:)`` and friends, newest writes first) before
/// the database, so it sees exactly what it would see had the earlier transactions committed already. The driver
/// commits in queue order; a commit whose predecessor failed must fail too (its body read writes that never became
/// durable). An entry leaves the queue when its commit finished (``finish(appId:id:_:)``), so a reader finds each
/// write either here or in the database, never in neither.
package final class CommitQueue: Sendable {
    private struct Entry {
        var id: Int
        var writes: TransactionWrites
        var outcome: CommitOutcome
    }

    private struct State {
        var nextId = 0
        var pending: [String: [Entry]] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// The outcome of the app's newest queued commit, which a transaction starting now follows (call it under the
    /// app lock, before the body reads anything).
    package func last(appId: String) -> CommitOutcome? {
        state.withLock { $0.pending[appId]?.last?.outcome }
    }

    /// Queues `writes`; returns the entry's id (for ``finish(appId:id:_:)``) and the outcome to wait for.
    package func enqueue(appId: String, _ writes: TransactionWrites) -> (id: Int, outcome: CommitOutcome) {
        state.withLock { state in
            state.nextId += 1
            let entry = Entry(id: state.nextId, writes: writes, outcome: CommitOutcome())
            state.pending[appId, default: []].append(entry)
            return (entry.id, entry.outcome)
        }
    }

    /// Takes a finished commit out of the queue and reports its result to whoever waits for it.
    package func finish(appId: String, id: Int, _ result: Result<Void, any Error>) {
        let outcome = state.withLock { state -> CommitOutcome? in
            guard let index = state.pending[appId]?.firstIndex(where: { $0.id == id }) else { return nil }
            let entry = state.pending[appId]!.remove(at: index)
            if state.pending[appId]!.isEmpty { state.pending[appId] = nil }
            return entry.outcome
        }
        outcome?.settle(result)
    }

    /// Waits until every commit queued so far has finished (before closing the database).
    package func drain() async {
        let outcomes = state.withLock { $0.pending.values.flatMap { $0.map(\.outcome) } }
        for outcome in outcomes { try? await outcome.wait() }
    }

    // MARK: Reading through the queue

    /// What the queued writes say about documents, by `pk_key`: `.some(document)` when the newest queued write
    /// stores it, `.some(nil)` when it deletes it; keys no queued write touches are left out.
    package func documents(appId: String, collection: String, keys: [String]) -> [String: Document?] {
        state.withLock { state in
            guard let entries = state.pending[appId] else { return [:] }
            var found: [String: Document?] = [:]
            for key in keys {
                let address = DocumentAddress(collection: collection, key: key)
                for entry in entries.reversed() {
                    if let write = entry.writes.documents[address] {
                        found[key] = .some(write)
                        break
                    }
                }
            }
            return found
        }
    }

    /// The newest server version a queued write appends, or nil when none appends one.
    package func latestServerVersion(appId: String) -> Int64? {
        state.withLock { state in
            state.pending[appId]?.reversed().lazy.compactMap { $0.writes.changesets.last?.serverVersion }.first
        }
    }

    /// The newest queued integrated client version of a client file, or nil when no queued write sets one.
    package func integratedClientVersion(appId: String, fileIdent: Int64) -> Int64? {
        state.withLock { state in
            state.pending[appId]?.reversed().lazy.compactMap { $0.writes.progress[fileIdent] }.first
        }
    }
}

/// How one queued commit ended, once it has: waited for by its transaction's caller, and checked by the commit
/// queued after it.
package final class CommitOutcome: Sendable {
    private struct State {
        var result: Result<Void, any Error>?
        var waiters: [CheckedContinuation<Void, any Error>] = []
    }

    private let state = Mutex(State())

    /// Records the result and resumes the waiters (the first result counts).
    func settle(_ result: Result<Void, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// The result, when the commit has ended.
    package var result: Result<Void, any Error>? { state.withLock { $0.result } }

    /// Waits until the commit ended; throws its error.
    package func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let result = state.withLock { state -> Result<Void, any Error>? in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// Waits for a predecessor's commit; its failure becomes a ``StorageError/Code/conflict``.
    package func follow() async throws {
        do {
            try await wait()
        } catch {
            throw Self.predecessorFailed(error)
        }
    }

    package static func predecessorFailed(_ error: any Error) -> StorageError {
        StorageError(.conflict, "an earlier transaction of the app, whose writes this one read, failed to commit",
                     underlying: error)
    }
}
