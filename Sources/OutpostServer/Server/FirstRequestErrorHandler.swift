import NIOCore
import NIOHTTP1

/// Answers 400 to bytes that are not an HTTP request when they come before the connection's first request was
/// decoded, then closes the connection.
///
/// Until the first head is decoded, the WebSocket upgrade handler holds the connection, and nothing else handles
/// the decoder's errors there (the connection would stay open, unanswered). Once a request went through,
/// Hummingbird answers parse errors itself (400) and this handler passes them on.
final class FirstRequestErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    private var sawRequest = false
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sawRequest = true
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !sawRequest, error is HTTPParserError else { return context.fireErrorCaught(error) }
        guard !answered else { return }
        answered = true
        let body = ByteBuffer(string: APIError.malformedRequest().json.text)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))),
                      promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        context.triggerUserOutboundEvent(ConnectionDeadlineHandler.Event.closeAfterWrites, promise: nil)
    }
}
