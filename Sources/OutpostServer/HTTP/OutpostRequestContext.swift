import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of every Outpost route: Hummingbird's core storage, WebSocket upgrade support and the
/// peer's address.
public struct OutpostRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    /// The client's address, for logs.
    public let remoteAddress: String
    /// The client's address as auth throttling counts it (see ``throttlingAddress(of:)``); nil when unknown.
    public let clientAddress: String?
    /// The largest JSON body a route reads (`Request.jsonObject(context:)`; set by
    /// ``RequestBodyLimitMiddleware`` from ``OutpostServerConfiguration/maxRequestBodySize``).
    public var maxUploadSize: Int = 2 * 1024 * 1024
    /// The connection's channel (used to answer refused WebSocket upgrades).
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.remoteAddress = source.channel.remoteAddress?.description ?? "unknown"
        self.clientAddress = Self.throttlingAddress(of: source.channel.remoteAddress)
        self.channel = source.channel
    }
}
