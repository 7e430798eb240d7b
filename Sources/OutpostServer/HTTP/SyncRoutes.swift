import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import ServiceLifecycle

/// `GET /api/client/v2.0/app/{appId}/realm-sync`: authenticates the access token of the `Authorization: Bearer`
/// header, upgrades to a WebSocket and hands the connection to the ``SyncConnectionHandler``.
///
/// A request with a missing or invalid token (or for another app) is not upgraded: the same path on the HTTP
/// router answers it with the JSON error (401, or 404 for an unknown app).
struct SyncRoutes {
    static let path = ClientAPIRoutes.basePath + "/realm-sync"
    /// The largest message a client may send (16 MiB); larger ones close the connection with 1009.
    static let maxMessageSize = 16 * 1024 * 1024

    let auth: AuthService
    let handler: any SyncConnectionHandler
    let logger: Logger

    /// The upgrade route, on the WebSocket router. An accepted upgrade takes one of the user's connections from
    /// `quota` (429 when none is left; given back when the connection closes) and puts a ``WebSocketFrameGuard``
    /// in front of the frame decoder.
    func registerUpgrade(on router: Router<OutpostRequestContext>, quota: SyncConnectionQuota) {
        router.ws(RouterPath(Self.path)) { request, context in
            do {
                let appId = context.parameters.get("appId") ?? ""
                guard appId == auth.app.appId else { throw APIError.appNotFound(appId) }
                let user = try await auth.authenticate(accessToken: request.bearerToken())
                guard quota.reserve(user.userId) else { throw APIError.tooManyConnections(limit: quota.limit) }
                let channel = context.channel
                channel.closeFuture.whenComplete { _ in quota.release(user.userId) }
                try await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(WebSocketFrameGuard())
                }.get()
                return .upgrade([:])
            } catch {
                await Self.refuseUpgrade(APIError(from: error), channel: context.channel)
                return .dontUpgrade
            }
        } onUpgrade: { inbound, outbound, context in
            await serve(inbound: inbound, outbound: outbound, context: context)
        }
    }

    /// Answers a refused upgrade with the JSON error (401 for token problems, 404 for an unknown app) and
    /// `Connection: close`.
    ///
    /// hummingbird-websocket answers every refused upgrade with an empty 400 that cannot be customised, so the
    /// real answer is written first, straight to the channel's HTTP/1 encoder; clients read it (it carries its
    /// length and `Connection: close`) and the connection closes after hummingbird-websocket's trailing 400.
    static func refuseUpgrade(_ error: APIError, channel: any Channel) async {
        ServerMetrics.request(method: "GET", status: error.status.code)
        ServerMetrics.error(code: error.code)
        let body = ByteBuffer(string: error.json.text)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: error.status.code), headers: headers)
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil)
        try? await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
    }

    /// The answer to requests that were not upgraded, on the HTTP router.
    func registerRejection(on router: Router<OutpostRequestContext>) {
        router.get(RouterPath(Self.path)) { request, context -> Response in
            let appId = context.parameters.get("appId") ?? ""
            guard appId == auth.app.appId else { throw APIError.appNotFound(appId) }
            _ = try await auth.authenticate(accessToken: request.bearerToken())
            throw APIError(
                status: .upgradeRequired, errorCode: "BadRequest", code: "upgradeRequired",
                message: "this endpoint expects a WebSocket upgrade")
        }
    }

    private func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        context: WebSocketRouterContext<OutpostRequestContext>
    ) async {
        let user: AuthenticatedUser
        do {
            user = try await auth.authenticate(accessToken: context.request.bearerToken())
        } catch {
            // The token expired between the upgrade check and now.
            try? await outbound.close(.policyViolation, reason: "\(error)")
            return
        }
        ServerMetrics.syncConnection()
        let connection = SyncConnection(
            user: user, inbound: Self.messages(inbound, outbound: outbound, limit: Self.maxMessageSize),
            send: { text in try await outbound.write(.text(text)) },
            close: { code, reason in try? await outbound.close(WebSocketErrorCode(codeNumber: Int(code)), reason: reason) },
            remoteAddress: context.requestContext.remoteAddress)
        logger.debug("sync connection from \(connection.remoteAddress) for user \(user.userId)")
        let channel = context.requestContext.channel
        let logger = logger
        await withGracefulShutdownHandler {
            await handler.serve(connection)
        } onGracefulShutdown: {
            // hummingbird-websocket sends the close frame; a client that does not answer it (one that stopped
            // reading its socket) would hold the shutdown up for ever, so its connection is closed after a grace.
            channel.eventLoop.scheduleTask(in: .seconds(OutpostServerApplication.connectionShutdownGrace)) {
                guard channel.isActive else { return }
                logger.warning("sync connection from \(connection.remoteAddress) did not close within \(OutpostServerApplication.connectionShutdownGrace) s of the shutdown; closing it")
                channel.close(promise: nil)
            }
        }
    }

    /// The text messages of a connection, read from its frames when the connection loop asks for the next one (no
    /// task of its own per connection: an idle connection's suspended tasks are most of its memory). Continuation
    /// frames are joined. A binary frame ends the stream with ``SyncFrameError/binaryFrame``, a message over `limit`
    /// with ``SyncFrameError/frameTooLarge(limit:)``; each also closes the connection (1003, 1009).
    static func messages(_ inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, limit: Int)
        -> AsyncThrowingStream<String, any Error>
    {
        let frames = FrameReader(inbound.makeAsyncIterator())
        return AsyncThrowingStream(unfolding: { try await frames.nextMessage(outbound: outbound, limit: limit) })
    }

    /// The frame iterator of one connection; only the connection loop's task reads it, one message at a time.
    private final class FrameReader: @unchecked Sendable {
        // @unchecked Sendable: `frames` is used by one task at a time (the stream asks for one element at a time).
        private var frames: WebSocketInboundStream.AsyncIterator

        init(_ frames: WebSocketInboundStream.AsyncIterator) {
            self.frames = frames
        }

        /// The next whole text message, or nil when the client closed the connection.
        func nextMessage(outbound: WebSocketOutboundWriter, limit: Int) async throws -> String? {
            var message: ByteBuffer?
            while let frame = try await frames.next() {
                switch frame.opcode {
                case .binary:
                    try? await outbound.close(.unacceptableData, reason: "binary frames are not supported")
                    throw SyncFrameError.binaryFrame
                case .text:
                    message = frame.data
                case .continuation:
                    guard message != nil else { continue }
                    var data = frame.data
                    message!.writeBuffer(&data)
                }
                if let buffer = message, buffer.readableBytes > limit {
                    try? await outbound.close(.messageTooLarge, reason: "messages are limited to \(limit) bytes")
                    throw SyncFrameError.frameTooLarge(limit: limit)
                }
                if frame.fin, let buffer = message { return String(buffer: buffer) }
            }
            return nil
        }
    }
}
