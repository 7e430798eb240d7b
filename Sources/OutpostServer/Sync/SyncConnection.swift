/// One client's WebSocket connection as the sync service sees it, free of any networking types: the text frames
/// the client sends, a way to send text frames back, and a way to close the connection.
///
/// The HTTP layer builds it from a Hummingbird WebSocket after authenticating the request's access token, and
/// hands it to ``SyncConnectionHandler/serve(_:)``. The connection ends when `inbound` finishes.
public struct SyncConnection: Sendable {
    /// The authenticated user and their app.
    public var user: AuthenticatedUser
    /// Text frames from the client, in order. A binary frame finishes the stream with ``SyncFrameError/binaryFrame``.
    public var inbound: AsyncThrowingStream<String, any Error>
    /// Sends one text frame.
    public var send: @Sendable (String) async throws -> Void
    /// Closes the connection with a WebSocket close code and reason.
    public var close: @Sendable (_ code: UInt16, _ reason: String) async -> Void
    /// The peer's address, for logs.
    public var remoteAddress: String

    public init(
        user: AuthenticatedUser,
        inbound: AsyncThrowingStream<String, any Error>,
        send: @escaping @Sendable (String) async throws -> Void,
        close: @escaping @Sendable (_ code: UInt16, _ reason: String) async -> Void,
        remoteAddress: String
    ) {
        self.user = user
        self.inbound = inbound
        self.send = send
        self.close = close
        self.remoteAddress = remoteAddress
    }
}

/// Why the transport ended a connection's inbound stream.
public enum SyncFrameError: Error, Sendable, Hashable {
    /// The client sent a binary frame; the protocol is text only.
    case binaryFrame
    /// The client sent a frame larger than the limit.
    case frameTooLarge(limit: Int)
}

/// Serves sync connections. The sync engine implements it; the HTTP layer calls it.
public protocol SyncConnectionHandler: Sendable {
    /// Serves one connection until the client disconnects or the server shuts down.
    func serve(_ connection: SyncConnection) async
}
