import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import OutpostCore
import Synchronization

/// A bare WebSocket sync reader for the fan-out benchmark: it sends its opening messages (bind, query), then only
/// keeps each text frame's text with the time it arrived — taken in the channel handler, on the event loop that read
/// it — and answers WebSocket pings. Nothing is decoded while the benchmark runs, so 100 readers cost the shared two
/// cores little beside the server (`SyncTestClient` hands every frame through async sequences and an actor first).
final class FrameReader: Sendable {
    private let channel: Channel
    private let sink: Sink

    /// The frames received so far, in order, with their arrival times.
    var frames: [(arrival: ContinuousClock.Instant, text: String)] { sink.frames.withLock { $0 } }

    private init(channel: Channel, sink: Sink) {
        self.channel = channel
        self.sink = sink
    }

    /// Connects to `ws://host:port<path>` with a bearer token and sends `messages` once the WebSocket is open.
    static func connect(host: String, port: Int, path: String, token: String, messages: [String]) async throws
        -> FrameReader
    {
        let sink = Sink()
        let upgraded: EventLoopFuture<Bool> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(maxFrameSize: 1 << 24) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(Handler(sink: sink))
                            return true
                        }
                    }
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "\(host):\(port)")
                    headers.add(name: "Authorization", value: "Bearer \(token)")
                    headers.add(name: "Content-Length", value: "0")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        guard try await upgraded.get() else { throw FrameReaderError("the server refused the WebSocket upgrade") }
        // Sent once the upgrade is complete (while the upgrade handler runs, the HTTP encoder is still in place).
        let channel = sink.channel.withLock { $0! }
        for message in messages {
            let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(),
                                       data: channel.allocator.buffer(string: message))
            try await channel.writeAndFlush(frame)
        }
        return FrameReader(channel: channel, sink: sink)
    }

    /// Waits until a received frame satisfies `condition` (checked on each new frame).
    func waitFor(timeout: Duration, _ condition: @escaping @Sendable (String) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        var checked = 0
        while ContinuousClock.now < deadline {
            let frames = sink.frames.withLock { $0 }
            if frames[checked...].contains(where: { condition($0.text) }) { return }
            checked = frames.count
            try await Task.sleep(for: .milliseconds(2))
        }
        let texts = sink.frames.withLock { $0.map { String($0.text.prefix(300)) } }
        throw FrameReaderError("no awaited frame within \(timeout); received \(texts.count): \(texts)")
    }

    func close() async {
        try? await channel.close()
    }

    private final class Sink: Sendable {
        let frames = Mutex<[(arrival: ContinuousClock.Instant, text: String)]>([])
        let channel = Mutex<Channel?>(nil)
    }

    private final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        private let sink: Sink
        private var partial: ByteBuffer?

        init(sink: Sink) {
            self.sink = sink
        }

        func handlerAdded(context: ChannelHandlerContext) {
            sink.channel.withLock { $0 = context.channel }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let arrival = ContinuousClock.now
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text, .continuation:
                var data = frame.unmaskedData
                if var partial = self.partial {
                    partial.writeBuffer(&data)
                    data = partial
                }
                guard frame.fin else {
                    partial = data
                    return
                }
                partial = nil
                let text = String(buffer: data)
                sink.frames.withLock { $0.append((arrival, text)) }
            case .ping:
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .connectionClose:
                context.close(promise: nil)
            default:
                break
            }
        }
    }
}

struct FrameReaderError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
