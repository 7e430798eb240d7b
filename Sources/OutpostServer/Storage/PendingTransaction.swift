/// A transaction whose body has run and whose writes are being committed
/// (``DocumentStorage/queuedTransaction(appId:_:)``). Public because that hook's result is: a driver outside this
/// module makes one; the server's sync uploads are what waits for it.
///
/// What the body decided must not be acted on — acknowledged to a client, announced, answered — before
/// ``committed()`` returns: until then the writes may still fail to become durable.
public struct PendingTransaction<T: Sendable>: Sendable {
    private let result: T
    private let commit: @Sendable () async throws -> Void
    private let announce: @Sendable () -> Void

    /// A transaction that runs `commit` to finish, then `announce` (the storage's change notification); `result`
    /// is what its body returned.
    public init(result: T, commit: @escaping @Sendable () async throws -> Void,
                announce: @escaping @Sendable () -> Void = {}) {
        self.result = result
        self.commit = commit
        self.announce = announce
    }

    /// A transaction that has committed already (or had nothing to write).
    public init(committed result: T) {
        self.init(result: result, commit: {})
    }

    /// Waits until the transaction's writes are durable and returns the body's result; throws the commit's error
    /// (then nothing of the transaction was stored).
    public func committed() async throws -> T {
        try await committed(beforeAnnouncing: { _ in })
    }

    /// Like ``committed()``, but runs `beforeAnnouncing` once the writes are durable and before the storage's
    /// change notification for them goes out — so that whoever that notification wakes finds what the caller
    /// records there (the sync hub's memory of recent changesets). Not run when the commit fails.
    public func committed(beforeAnnouncing: @Sendable (T) async -> Void) async throws -> T {
        try await commit()
        await beforeAnnouncing(result)
        announce()
        return result
    }
}
