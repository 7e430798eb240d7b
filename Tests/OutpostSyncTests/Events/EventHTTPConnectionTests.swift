import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import Outpost

/// The event upload's HTTP/1.1 connection against a small NIO HTTP server on 127.0.0.1 (random port): pipelined
/// requests answered in order, keep-alive, timeouts, and a server that closes or is not there.
@Suite(.timeLimit(.minutes(1)))
struct EventHTTPConnectionTests {
    @Test func pipelinedRequestsGetTheirOwnAnswersInOrderOnOneConnection() async throws {
        try await withEchoServer { url, server in
            let connection = try await EventHTTPConnection.connect(to: url, timeout: 10)
            defer { connection.close() }
            // The first is slow, so the others wait behind it on the socket.
            let first = connection.send(method: .POST, path: "/slow", headers: [("X-Test", "a")], body: Array("one".utf8))
            let second = connection.send(method: .POST, path: "/echo", headers: [], body: Array("two".utf8))
            let third = connection.send(method: .POST, path: "/echo", headers: [], body: Array(repeating: 0x78, count: 300_000))
            let answers = try await [first.get(), second.get(), third.get()]
            #expect(answers.map(\.status) == [200, 200, 200])
            #expect(answers[0].body == "POST /slow a one")
            #expect(answers[1].body == "POST /echo - two")
            #expect(answers[2].body == "POST /echo - " + String(repeating: "x", count: 300_000))
            #expect(answers[0].headers["content-type"] == "text/plain")
            #expect(connection.isActive)
            #expect(server.connections.withLock { $0 } == 1)
        }
    }

    @Test func errorStatusesAreAnswersNotFailures() async throws {
        try await withEchoServer { url, _ in
            let connection = try await EventHTTPConnection.connect(to: url, timeout: 10)
            defer { connection.close() }
            let answer = try await connection.send(method: .POST, path: "/status/503", headers: [], body: []).get()
            #expect(answer.status == 503)
            #expect(answer.body == "status 503")
            // The connection stays usable.
            #expect(try await connection.send(method: .POST, path: "/echo", headers: [], body: Array("ok".utf8)).get()
                .body == "POST /echo - ok")
        }
    }

    @Test func aServerThatClosesFailsTheWaitingRequests() async throws {
        try await withEchoServer { url, _ in
            let connection = try await EventHTTPConnection.connect(to: url, timeout: 10)
            defer { connection.close() }
            let closing = connection.send(method: .POST, path: "/close", headers: [], body: [])
            await #expect(throws: EventHTTPConnection.Failure.self) { _ = try await closing.get() }
            try await waitUntil { !connection.isActive }
            await #expect(throws: EventHTTPConnection.Failure.self) {
                _ = try await connection.send(method: .POST, path: "/echo", headers: [], body: []).get()
            }
        }
    }

    @Test func aRequestWithoutAnswerTimesOut() async throws {
        try await withEchoServer { url, _ in
            let connection = try await EventHTTPConnection.connect(to: url, timeout: 0.3)
            defer { connection.close() }
            let start = ContinuousClock.now
            let error = await #expect(throws: EventHTTPConnection.Failure.self) {
                _ = try await connection.send(method: .POST, path: "/never", headers: [], body: []).get()
            }
            #expect(error?.description.contains("no answer within") == true)
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    /// A request sent while the connection's event loop is busy for longer than the timeout still waits its full
    /// time for an answer and fails as timed out (the clock once started before the request reached the loop, and
    /// then the request failed as "the connection is closed").
    @Test func aRequestSentWhileTheLoopIsBusyTimesOutAsSuch() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        try await withEchoServer { url, _ in
            let connection = try await EventHTTPConnection.connect(to: url, timeout: 0.3, group: group)
            defer { connection.close() }
            group.next().execute { Thread.sleep(forTimeInterval: 0.6) }
            let start = ContinuousClock.now
            let error = await #expect(throws: EventHTTPConnection.Failure.self) {
                _ = try await connection.send(method: .POST, path: "/never", headers: [], body: []).get()
            }
            #expect(error?.description.contains("no answer within") == true)
            #expect(ContinuousClock.now - start >= .seconds(0.8))
        }
        try await group.shutdownGracefully()
    }

    @Test func connectingToAClosedPortFails() async throws {
        // A port bound but not listening: connections to it are refused, and no other test can take it meanwhile
        // (a port freed by a finished server could be reused by a parallel test's server).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                bind(fd, sockaddrPointer, length) == 0 && getsockname(fd, sockaddrPointer, &length) == 0
            }
        }
        #expect(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        await #expect(throws: EventHTTPConnection.Failure.self) {
            _ = try await EventHTTPConnection.connect(to: URL(string: "http://127.0.0.1:\(port)")!, timeout: 5)
        }
        #expect(!EventHTTPConnection.supports(URL(string: "https://example.com")!))
        #expect(EventHTTPConnection.supports(URL(string: "http://127.0.0.1:9")!))
    }

    // MARK: The test server

    final class ServerState: Sendable {
        let connections = KillTests.LockedValue(0)
    }

    /// Answers `/echo` with "<method> <path> <X-Test or -> <body>", `/slow` the same after 300 ms, `/status/<n>`
    /// with that status, `/close` by closing the connection, and `/never` not at all.
    private final class EchoHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private var head: HTTPRequestHead?
        private var body = ""

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = ""
            case .body(let buffer):
                body += String(buffer: buffer)
            case .end:
                guard let head else { return }
                let text = "\(head.method.rawValue) \(head.uri) \(head.headers["X-Test"].first ?? "-") \(body)"
                switch head.uri {
                case "/close": context.close(promise: nil)
                case "/never": break
                case "/slow":
                    let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                    context.eventLoop.scheduleTask(in: .milliseconds(300)) {
                        let (handler, context) = loopBound.value
                        handler.respond(context: context, status: .ok, text)
                    }
                default:
                    if head.uri.hasPrefix("/status/"), let code = Int(head.uri.dropFirst(8)) {
                        respond(context: context, status: HTTPResponseStatus(statusCode: code), "status \(code)")
                    } else {
                        respond(context: context, status: .ok, text)
                    }
                }
            }
        }

        private func respond(context: ChannelHandlerContext, status: HTTPResponseStatus, _ text: String) {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain")
            headers.add(name: "Content-Length", value: String(text.utf8.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                          promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))),
                          promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    private func withEchoServer(_ body: (URL, ServerState) async throws -> Void) async throws {
        let state = ServerState()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                state.connections.withLock { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true)
                    try channel.pipeline.syncOperations.addHandler(EchoHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        do {
            try await body(URL(string: "http://127.0.0.1:\(server.localAddress!.port!)")!, state)
        } catch {
            try? await server.close()
            throw error
        }
        try await server.close()
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("condition not met in 10 s"); return }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
