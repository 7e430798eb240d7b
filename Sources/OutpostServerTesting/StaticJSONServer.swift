import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A real HTTP server on 127.0.0.1 (random port) that answers `GET <path>` with a JSON body the test can change,
/// and counts the requests: an identity provider's JWK URI, for example.
///
/// ```swift
/// try await StaticJSONServer.with(path: "/jwks", body: keySet) { server in
///     server.body = otherKeySet        // the next request gets it
///     #expect(server.requests == 1)
/// }
/// ```
public final class StaticJSONServer: Sendable {
    private struct State {
        var body: String
        var status: Int = 200
        var requests = 0
        var posted: [String] = []
    }

    private let state: Mutex<State>
    /// The bound port (set once the server listens).
    private let boundPort = Mutex(0)
    public let path: String
    public var port: Int { boundPort.withLock { $0 } }
    public var url: String { "http://127.0.0.1:\(port)\(path)" }

    /// What the next request gets.
    public var body: String {
        get { state.withLock { $0.body } }
        set { state.withLock { $0.body = newValue } }
    }

    /// The status of the next answers (200 by default).
    public var status: Int {
        get { state.withLock { $0.status } }
        set { state.withLock { $0.status = newValue } }
    }

    /// How many requests were answered.
    public var requests: Int { state.withLock { $0.requests } }

    /// The bodies POSTed to the path, in order (a webhook's deliveries); each is answered with the status and body.
    public var posted: [String] { state.withLock { $0.posted } }

    private init(path: String, body: String) {
        self.path = path
        self.state = Mutex(State(body: body))
    }

    /// Runs `body` with the server listening; the server is stopped before this returns.
    public static func with<T>(path: String, body initial: String, _ body: (StaticJSONServer) async throws -> T)
        async throws -> T
    {
        let server = StaticJSONServer(path: path, body: initial)
        let router = Router()
        router.get(RouterPath(path)) { _, _ -> Response in
            let (text, status) = server.state.withLock { state in
                state.requests += 1
                return (state.body, state.status)
            }
            return Response(status: .init(code: status), headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        router.post(RouterPath(path)) { request, _ -> Response in
            let received = try await request.body.collect(upTo: 1 << 20)
            let (text, status) = server.state.withLock { state in
                state.requests += 1
                state.posted.append(String(buffer: received))
                return (state.body, state.status)
            }
            return Response(status: .init(code: status), headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        var logger = Logger(label: "static-json-server")
        logger.logLevel = .warning
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { portContinuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await tasks.waitForAll()
                throw TestServerError("the JSON server stopped before it listened")
            }
            server.boundPort.withLock { $0 = port }
            let result: Result<T, any Error>
            do {
                result = .success(try await body(server))
            } catch {
                result = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }
}
