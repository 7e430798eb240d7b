import Foundation
import OutpostCore

/// Identifies a queued asynchronous write or commit completion, for `cancelAsyncWrite(_:)`.
public typealias AsyncTransactionId = UInt32

/// A Realm's queued asynchronous writes: `beginAsyncWrite` blocks run one at a time, in order, on the Realm's run
/// loop or queue, each in a write transaction; commit completions are called there after the commit.
final class AsyncWrites {
    var nextId: AsyncTransactionId = 1
    var begins: [(id: AsyncTransactionId, block: () -> Void)] = []
    var completions: Set<AsyncTransactionId> = []
    var isScheduled = false
    var isRunning = false
    /// A queued block's turn came during a synchronous write of this Realm: the queue goes on when it ends.
    var waitsForWriteEnd = false

    func makeId() -> AsyncTransactionId {
        defer { nextId &+= 1 }
        return nextId
    }
}

/// Carries a Realm instance into a block scheduled on its own run loop or queue, where it is used. It holds the
/// instance: a Realm released right after queueing a write still runs it and calls its completion, as Realm's do.
private struct ScheduledInstance: @unchecked Sendable {
    let instance: RealmInstance
}

extension Realm {
    /// Runs `block` in a write transaction on this Realm's run loop or queue, after the writes queued before it,
    /// and commits it (unless `block` commits or cancels itself); `onComplete` is called there after the commit.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void, onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        beginAsyncWrite { [self] in
            block()
            if isInWriteTransaction { commitAsyncWrite(onComplete) }
        }
    }

    /// Queues `asyncWriteBlock` to run in a write transaction on this Realm's run loop or queue, in order with the
    /// other asynchronous writes; returns at once. The block should end with `commitAsyncWrite` or `commitWrite`;
    /// returning inside the transaction cancels it. Outpost waits for the write lock on the Realm's thread when the
    /// block's turn comes (Realm waits on a background thread).
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        instance.verifyAccess()
        guard instance.scheduler != nil else {
            fatalError("Asynchronous writes need a Realm confined to a run loop or a dispatch queue.")
        }
        if instance.isFrozen { fatalError("Can't perform transactions on a frozen Realm") }
        if instance.isReadOnly { fatalError("Can't perform transactions on read-only Realms.") }
        let writes = instance.asyncWrites
        let id = writes.makeId()
        writes.begins.append((id, asyncWriteBlock))
        Self.scheduleNextAsyncWrite(instance)
        return id
    }

    /// Commits the write transaction and calls `onComplete` with its error (or nil) on this Realm's run loop or
    /// queue. `allowGrouping` is accepted for Realm's signature: every Outpost commit is durable when it returns.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: ((Swift.Error?) -> Void)? = nil)
        -> AsyncTransactionId
    {
        precondition(isInWriteTransaction, "Can't commit a non-existing write transaction")
        let writes = instance.asyncWrites
        let id = writes.makeId()
        var failure: Swift.Error?
        do {
            try commitWrite()
        } catch {
            failure = error
        }
        guard let onComplete else { return id }
        guard let scheduler = instance.scheduler else {
            onComplete(failure)
            return id
        }
        writes.completions.insert(id)
        let target = ScheduledInstance(instance: instance)
        nonisolated(unsafe) let deliver = { onComplete(failure) }
        scheduler.schedule {
            guard target.instance.asyncWrites.completions.remove(id) != nil else { return }
            deliver()
        }
        return id
    }

    /// Cancels a queued `beginAsyncWrite` block (the transaction never happens) or a commit's completion (the commit
    /// stands); an id whose block already ran is ignored.
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        instance.verifyAccess()
        let writes = instance.asyncWrites
        writes.begins.removeAll { $0.id == asyncTransactionId }
        writes.completions.remove(asyncTransactionId)
    }

    /// Whether asynchronous writes or commit completions are queued or running.
    public var isPerformingAsynchronousWriteOperations: Bool {
        instance.verifyAccess()
        let writes = instance.asyncWrites
        return writes.isRunning || !writes.begins.isEmpty || !writes.completions.isEmpty
    }

    /// Runs `block` in a write transaction on the calling actor and commits it, as `write(_:)` does.
    public func asyncWrite<Result>(_isolation actor: isolated any Actor = #isolation, _ block: () throws -> Result)
        async throws -> Result
    {
        // As Realm's: a cancelled task does not write (the block is not called), and a writer on another thread
        // is waited for without holding up the actor (cancelling the task ends the wait with CancellationError).
        try Task.checkCancellation()
        if !instance.isInWriteTransaction {
            let lock = instance.fileWriteLock
            try await lock.waitUntilFree()
        }
        try Task.checkCancellation()
        let writes = instance.asyncWrites
        let wasRunning = writes.isRunning
        writes.isRunning = true
        defer { writes.isRunning = wasRunning }
        return try write(block)
    }

    /// Moves the Realm to the latest version on the calling actor, as `refresh()` does.
    @discardableResult
    public func asyncRefresh(_isolation: isolated any Actor = #isolation) async -> Bool {
        refresh()
    }

    private static func scheduleNextAsyncWrite(_ instance: RealmInstance) {
        let writes = instance.asyncWrites
        guard !writes.isScheduled, !writes.begins.isEmpty, let scheduler = instance.scheduler else { return }
        writes.isScheduled = true
        let target = ScheduledInstance(instance: instance)
        scheduler.schedule {
            target.instance.asyncWrites.isScheduled = false
            runNextAsyncWrite(target.instance)
        }
    }

    /// Goes on with the queued blocks after a synchronous write of this Realm ended (committed or cancelled), if
    /// one was waiting for it.
    static func resumeAsyncWritesAfterWrite(_ instance: RealmInstance) {
        let writes = instance.asyncWrites
        guard writes.waitsForWriteEnd else { return }
        writes.waitsForWriteEnd = false
        scheduleNextAsyncWrite(instance)
    }

    /// Runs the first queued block in a write transaction; a synchronous write of this Realm that is still open
    /// (begun since) goes first, and the queue waits for its end (``resumeAsyncWritesAfterWrite(_:)``).
    private static func runNextAsyncWrite(_ instance: RealmInstance) {
        let writes = instance.asyncWrites
        guard !writes.begins.isEmpty, !instance.isInvalidated else { return }
        if instance.isInWriteTransaction {
            writes.waitsForWriteEnd = true
            return
        }
        let (_, block) = writes.begins.removeFirst()
        let realm = Realm(instance: instance)
        writes.isRunning = true
        realm.beginWrite()
        block()
        if realm.isInWriteTransaction { realm.cancelWrite() }
        writes.isRunning = false
        scheduleNextAsyncWrite(instance)
    }
}
