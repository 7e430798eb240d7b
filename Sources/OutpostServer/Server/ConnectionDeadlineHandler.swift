import Hummingbird
import NIOCore

/// The first handler of every connection (next to the socket): it keeps the connection's ``ConnectionDeadlines``
/// and closes the connection when one passes, so that no socket stays open on a client that stopped sending.
///
/// It sees the raw bytes of every phase (the first request, later requests, a WebSocket); the HTTP handlers further
/// down tell it where requests and responses start and end with ``Event``s sent as outbound user events.
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// What the HTTP handlers report (as `triggerUserOutboundEvent`).
    enum Event: Sendable {
        case headReceived
        case requestEnded
        case responseStarted
        case responseEnded
        /// The connection became a WebSocket: no more deadlines.
        case upgraded
        /// Close once what was written is sent (draining the client's input for a moment, so it reads the answer).
        case closeAfterWrites
    }

    private let headTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private var deadlines: ConnectionDeadlines?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?

    init(headTimeout: TimeAmount, bodyTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard var deadlines else { return context.fireChannelRead(data) }
        // A closing connection only drains: the request it answered is over.
        if case .closing = deadlines.phase { return }
        deadlines.bytesRead(at: .now())
        self.deadlines = deadlines
        updateTimer(context)
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let event = event as? Event else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        promise?.succeed()
        guard deadlines != nil else { return }
        let now = NIODeadline.now()
        switch event {
        case .headReceived: deadlines?.headReceived(at: now)
        case .requestEnded: deadlines?.requestEnded(at: now)
        case .responseStarted: deadlines?.responseStarted(at: now)
        case .responseEnded: deadlines?.responseEnded(at: now)
        case .upgraded: deadlines?.upgraded()
        case .closeAfterWrites: return closeAfterWrites(context)
        }
        updateTimer(context)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard deadlines == nil else { return }
        deadlines = ConnectionDeadlines(
            headTimeout: headTimeout, bodyTimeout: bodyTimeout, idleTimeout: idleTimeout, connectedAt: .now())
        updateTimer(context)
    }

    /// Schedules the timer for the current deadline; a later deadline lets the earlier timer fire and reschedule.
    private func updateTimer(_ context: ChannelHandlerContext) {
        guard let deadline = deadlines?.deadline else { return cancelTimer() }
        if let timerDeadline, timerDeadline <= deadline { return }
        cancelTimer()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            timerDeadline = nil
            expire(context)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func expire(_ context: ChannelHandlerContext) {
        guard var deadlines else { return }
        let expiry = deadlines.expired(at: .now())
        self.deadlines = deadlines
        switch expiry {
        case .wait:
            updateTimer(context)
        case .close:
            context.close(promise: nil)
        case .answerTimeoutAndClose:
            context.write(wrapOutboundOut(.byteBuffer(Self.timeoutAnswer)), promise: nil)
            closeAfterWrites(context)
        }
    }

    /// Closes the output once the pending writes are sent, then drains the input until the client closes its side
    /// or the linger timeout passes (closing with unread input would reset the connection, and the client could
    /// lose the answer).
    private func closeAfterWrites(_ context: ChannelHandlerContext) {
        deadlines?.closing(at: .now())
        context.flush()
        let closed = context.eventLoop.makePromise(of: Void.self)
        closed.futureResult.assumeIsolated().whenFailure { _ in context.close(promise: nil) }
        context.close(mode: .output, promise: closed)
        updateTimer(context)
    }

    /// `408 Request Timeout` with the JSON error and `Connection: close`.
    static let timeoutAnswer: ByteBuffer = {
        let body = APIError.requestTimeout().json.text
        return ByteBuffer(
            string: "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: "
                + "\(body.utf8.count)\r\nconnection: close\r\n\r\n" + body)
    }()
}
