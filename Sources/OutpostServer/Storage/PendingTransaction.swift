/// A transaction whose body has run and whose writes are being committed
/// (``ServerStorage/queuedTransaction(appId:_:)``). (Outpost-internal.)
///
/// What the body decided must not be acted on — acknowledged to a client, announced, answered — before
/// ``committed()`` returns: until then the writes may still fail to become durable.
public struct PendingTransaction<T: Sendable>: Sendable {
    private let result: T
    private let commit: @Sendable () async throws -> Void

    /// A transaction that runs `commit` to finish; `result` is what its body returned.
    public init(result: T, commit: @escaping @Sendable () async throws -> Void) {
        self.result = result
        self.commit = commit
    }

    /// A transaction that has committed already (or had nothing to write).
    public init(committed result: T) {
        self.init(result: result, commit: {})
    }

    /// Waits until the transaction's writes are durable and returns the body's result; throws the commit's error
    /// (then nothing of the transaction was stored).
    public func committed() async throws -> T {
        try await commit()
        return result
    }
}
