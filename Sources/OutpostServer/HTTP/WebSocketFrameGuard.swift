import NIOCore
import NIOWebSocket

/// Closes a sync WebSocket with 1002 (protocol error) when the client sends a frame without a masking key, which
/// RFC 6455 §5.1 forbids; the frames, control frames included, are checked as their bytes arrive
/// (``WebSocketFrameScanner``).
///
/// ``SyncRoutes`` adds it when it accepts an upgrade, before the WebSocket handlers, so it reads the raw bytes
/// in front of the frame decoder. It also tells the ``ConnectionDeadlineHandler`` that the HTTP deadlines are over.
final class WebSocketFrameGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = IOData

    private var scanner = WebSocketFrameScanner()
    private var failed = false

    func handlerAdded(context: ChannelHandlerContext) {
        context.triggerUserOutboundEvent(ConnectionDeadlineHandler.Event.upgraded, promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let buffer = unwrapInboundIn(data)
        switch scanner.scan(buffer.readableBytesView) {
        case .valid:
            context.fireChannelRead(data)
        case .unmaskedFrame:
            failed = true
            var close = ByteBuffer()
            close.writeBytes([0x88, 0x02])  // FIN, close opcode; 2 payload bytes, unmasked (server to client)
            close.write(webSocketErrorCode: .protocolError)
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(close)), promise: nil)
            context.triggerUserOutboundEvent(ConnectionDeadlineHandler.Event.closeAfterWrites, promise: nil)
        }
    }
}
