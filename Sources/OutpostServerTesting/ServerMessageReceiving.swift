import OutpostCore

/// Something a test reads server messages from: a ``SyncTestClient`` (real WebSocket) or an
/// ``InMemorySyncConnection`` (no socket).
public protocol ServerMessageReceiving: Sendable {
    /// The next message from the server.
    func next(timeout: Duration) async throws -> ServerMessage
}

extension ServerMessageReceiving {
    /// Reads messages until one satisfies `predicate`, returning it (the others are dropped).
    public func next(timeout: Duration = .seconds(30), where predicate: (ServerMessage) -> Bool) async throws -> ServerMessage {
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw SyncTestClient.ClientError.timeout(timeout) }
            let message = try await next(timeout: remaining)
            if predicate(message) { return message }
        }
    }
}
