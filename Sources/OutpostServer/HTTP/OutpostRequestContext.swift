import Hummingbird
import HummingbirdWebSocket

/// The request context of every Outpost route: Hummingbird's core storage, WebSocket upgrade support and the
/// peer's address.
public struct OutpostRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    /// The client's address, for logs.
    public let remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.remoteAddress = source.channel.remoteAddress?.description ?? "unknown"
    }
}
