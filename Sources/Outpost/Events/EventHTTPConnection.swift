import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One keep-alive HTTP/1.1 connection for the event upload, on SwiftNIO (which the client already links for its
/// WebSocket): requests may be pipelined — sent before the answers to earlier ones arrived — and the answers come
/// back in order. It replaces `URLSession` for the upload because FoundationNetworking on Linux (libcurl, woken by
/// dispatch sources per socket event) cost about a third of all CPU of an upload.
///
/// Plain `http://` only: for `https://` (and when the app has its own ``RLMNetworkTransport``) the uploader
/// keeps sending through the app's transport (`URLSession` by default), one request at a time.
final class EventHTTPConnection: Sendable {
    /// A request failed without an answer: the connection broke, timed out, or could not be opened.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// An answer: status, headers (names lowercased) and body text.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    private let channel: any Channel
    private let hostHeader: String
    /// Seconds a request may wait for its answer (counted from when it is queued on the connection).
    private let timeout: TimeInterval

    private init(channel: any Channel, hostHeader: String, timeout: TimeInterval) {
        self.channel = channel
        self.hostHeader = hostHeader
        self.timeout = timeout
    }

    /// Whether `url` can be reached by this connection: an `http://` URL with a host.
    static func supports(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "http" && url.host != nil
    }

    /// Opens a connection to the host and port of an `http://` URL.
    static func connect(to url: URL, timeout: TimeInterval,
                        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws
        -> EventHTTPConnection
    {
        guard supports(url), let host = url.host else { throw Failure(description: "not an http:// URL: \(url)") }
        let port = url.port ?? 80
        do {
            let channel = try await ClientBootstrap(group: group)
                .connectTimeout(.milliseconds(Int64(max(timeout, 1) * 1000)))
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ClientHandler())
                    }
                }
                .connect(host: host, port: port).get()
            return EventHTTPConnection(channel: channel, hostHeader: url.port.map { "\(host):\($0)" } ?? host,
                                       timeout: timeout)
        } catch {
            throw Failure(description: "cannot connect to \(host):\(port): \(error)")
        }
    }

    /// Whether the connection is still open (the server may close an idle one).
    var isActive: Bool { channel.isActive }

    /// Sends a request at once (behind the ones already sent) and returns its answer's future.
    func send(method: HTTPMethod, path: String, headers: [(String, String)], body: [UInt8])
        -> EventLoopFuture<Response>
    {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: hostHeader)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.add(name: "Content-Length", value: String(body.count))
        let promise = channel.eventLoop.makePromise(of: Response.self)
        let buffer = channel.allocator.buffer(bytes: body)
        let request = ClientHandler.Request(head: head, body: buffer, promise: promise, timeout: timeout)
        channel.writeAndFlush(request).whenFailure { error in
            promise.fail(Failure(description: "cannot send the request: \(error)"))
        }
        return promise.futureResult
    }

    /// Closes the connection; requests still waiting fail.
    func close() {
        channel.close(promise: nil)
    }

    /// Writes requests and pairs each answer with the oldest waiting request. Runs on the channel's event loop only.
    private final class ClientHandler: ChannelDuplexHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundIn = Request
        typealias OutboundOut = HTTPClientRequestPart

        struct Request: Sendable {
            var head: HTTPRequestHead
            var body: ByteBuffer
            var promise: EventLoopPromise<Response>
            /// Seconds the request may wait for its answer once it is queued on the connection.
            var timeout: TimeInterval
        }

        private var waiting = CircularBuffer<EventLoopPromise<Response>>()
        private var head: HTTPResponseHead?
        private var body: ByteBuffer?

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let request = unwrapOutboundIn(data)
            guard context.channel.isActive else {
                request.promise.fail(Failure(description: "the connection is closed"))
                promise?.fail(ChannelError.ioOnClosedChannel)
                return
            }
            waiting.append(request.promise)
            // The answer's clock starts here, on the event loop, once the request waits in line. (Started by the
            // caller, before the write reached the loop, a busy loop could run the timer first: it found nothing
            // waiting, closed the connection, and the request failed as "closed" instead of timed out.)
            let timeout = request.timeout
            let channel = context.channel
            let timer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
                // Fails every waiting request (the answers of a connection come in order) and closes it.
                channel.pipeline.fireErrorCaught(Failure(description: "no answer within \(timeout) s"))
            }
            request.promise.futureResult.whenComplete { _ in timer.cancel() }
            context.write(wrapOutboundOut(.head(request.head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(request.body))), promise: nil)
            context.write(wrapOutboundOut(.end(nil)), promise: promise)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = nil
            case .body(var part):
                if body == nil { body = part } else { body!.writeBuffer(&part) }
            case .end:
                guard let head else { return }
                self.head = nil
                let text = body.map { String(buffer: $0) } ?? ""
                body = nil
                // 1xx answers are followed by the real one.
                guard head.status.code >= 200 else { return }
                var headers: [String: String] = [:]
                for (name, value) in head.headers { headers[name.lowercased()] = value }
                let response = Response(status: Int(head.status.code), headers: headers, body: text)
                if let promise = waiting.popFirst() { promise.succeed(response) }
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            failAll(error as? Failure ?? Failure(description: "the connection failed: \(error)"))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            failAll(Failure(description: "the server closed the connection"))
            context.fireChannelInactive()
        }

        private func failAll(_ error: Failure) {
            while let promise = waiting.popFirst() { promise.fail(error) }
        }
    }
}
