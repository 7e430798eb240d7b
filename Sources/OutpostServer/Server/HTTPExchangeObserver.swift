import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Reports where requests and responses start and end to the connection's ``ConnectionDeadlineHandler``, and closes
/// the connection after a response that says `Connection: close` (a refused body is then not read to its end).
///
/// It sits among Hummingbird's HTTP handlers (``HTTP1Channel/Configuration/additionalChannelHandlers``), so it
/// sees decoded request parts and response parts.
final class HTTPExchangeObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closeAfterResponse = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: context.triggerUserOutboundEvent(ConnectionDeadlineHandler.Event.headReceived, promise: nil)
        case .body: break
        case .end: context.triggerUserOutboundEvent(ConnectionDeadlineHandler.Event.requestEnded, promise: nil)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.headerFields[.connection]?.lowercased() == "close" { closeAfterResponse = true }
            context.write(data, promise: promise)
            context.triggerUserOutboundEvent(ConnectionDeadlineHandler.Event.responseStarted, promise: nil)
        case .body:
            context.write(data, promise: promise)
        case .end:
            context.write(data, promise: promise)
            context.triggerUserOutboundEvent(ConnectionDeadlineHandler.Event.responseEnded, promise: nil)
            if closeAfterResponse {
                context.triggerUserOutboundEvent(ConnectionDeadlineHandler.Event.closeAfterWrites, promise: nil)
            }
        }
    }
}
