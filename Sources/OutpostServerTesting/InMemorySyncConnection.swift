import Foundation
import OutpostCore
import OutpostServer

/// A sync connection without a socket, for fast tests of the sync engine: the test sends client messages and
/// reads server messages; the engine serves it exactly as it serves a WebSocket.
public final class InMemorySyncConnection: ServerMessageReceiving, Sendable {
    private let inbox = Inbox()
    private let input: AsyncThrowingStream<String, any Error>.Continuation
    private let task: Task<Void, Never>

    /// Starts serving a connection for `user` on `handler`.
    public init(handler: any SyncConnectionHandler, user: AuthenticatedUser) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: String.self)
        input = continuation
        let inbox = self.inbox
        let connection = SyncConnection(
            user: user, inbound: stream,
            send: { text in await inbox.received(text) },
            close: { code, reason in
                continuation.finish()
                await inbox.closed("\(code) \(reason)")
            },
            remoteAddress: "in-memory")
        task = Task {
            await inbox.opened()
            await handler.serve(connection)
            await inbox.closed(nil)
        }
    }

    public func send(_ message: ClientMessage) {
        input.yield(message.text)
    }

    public func sendRaw(_ text: String) {
        input.yield(text)
    }

    /// The next message from the server.
    public func next(timeout: Duration = .seconds(30)) async throws -> ServerMessage {
        try ServerMessage(text: try await inbox.next(timeout: timeout))
    }


    /// Waits until the server closes the connection.
    public func waitForClose(timeout: Duration = .seconds(30)) async throws -> String? {
        try await inbox.waitForClose(timeout: timeout)
    }

    /// Ends the connection from the client side and waits until the server is done with it.
    public func close() async {
        input.finish()
        _ = await task.value
    }
}
