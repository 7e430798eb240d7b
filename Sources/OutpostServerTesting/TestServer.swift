import Foundation
import Logging
import OutpostCore
import OutpostServer
import ServiceLifecycle

/// A running in-process Outpost server on 127.0.0.1 and a random port, as `withTestServer` hands it to a test.
public struct TestServer: Sendable {
    /// The bound port.
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// The served app.
    public let app: AppDefinition
    public var appId: String { app.appId }
    /// The server's storage (inspect it, or seed it).
    public let storage: any ServerStorage
    /// The server's auth service (issue tokens without HTTP).
    public let auth: AuthService
    /// The data directory (signing key, admin key).
    public let dataDirectory: URL
    /// An HTTP client pointed at the server.
    public var client: TestHTTPClient { TestHTTPClient(baseURL: baseURL) }

    /// The path of a client API endpoint: `/api/client/v2.0/app/<appId>/<endpoint>`.
    public func clientPath(_ endpoint: String, appId: String? = nil) -> String {
        "/api/client/v2.0/app/\(appId ?? self.appId)/\(endpoint)"
    }

    /// The sync WebSocket URL: `ws://127.0.0.1:<port>/api/client/v2.0/app/<appId>/realm-sync`.
    public func syncURL(appId: String? = nil) -> String {
        "ws://127.0.0.1:\(port)" + clientPath("realm-sync", appId: appId)
    }
}

/// A failure of the test support itself.
public struct TestServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Starts the full HTTP server in-process on 127.0.0.1 with a random port, runs `body`, then shuts the server down
/// gracefully (also when `body` throws).
///
/// - Parameters:
///   - configuration: the app (default: the development app with id `test-app`).
///   - storage: the storage; nil makes a fresh ``MemoryStorage``. A given storage is not closed afterwards.
///   - handler: the sync connection handler; nil serves sync with the server's own ``SyncEngine``.
///   - dataDirectory: the data directory; nil makes a temporary one, removed afterwards.
///   - clock: the time for tokens (see ``TestClock``).
///   - passwordIterations: PBKDF2 rounds (low by default so tests run fast).
///   - passwordHashingPool: the threads PBKDF2 runs on (a test of hashing under load may give it its own).
///   - tuning: changes the server configuration (timeouts, limits) before the server starts.
public func withTestServer<T>(
    configuration: AppDefinition = .development(appId: "test-app"),
    storage: (any ServerStorage)? = nil,
    handler: (any SyncConnectionHandler)? = nil,
    dataDirectory: URL? = nil,
    clock: @escaping @Sendable () -> Date = { Date() },
    passwordIterations: Int = 1_000,
    passwordHashingPool: PasswordHashingPool = .shared,
    tuning: (inout OutpostServerConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let directory = dataDirectory ?? FileManager.default.temporaryDirectory
        .appendingPathComponent("outpost-test-\(UUID().uuidString)")
    defer { if dataDirectory == nil { try? FileManager.default.removeItem(at: directory) } }
    var logger = Logger(label: "outpost-test-server")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .warning
    let (infos, infoContinuation) = AsyncStream<ServerInfo>.makeStream()
    var serverConfiguration = OutpostServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory)
    tuning(&serverConfiguration)
    let server = try OutpostServerApplication(
        configuration: serverConfiguration,
        app: configuration, storage: storage ?? MemoryStorage(), syncHandler: handler,
        passwordHasher: PasswordHasher(iterations: passwordIterations, pool: passwordHashingPool), clock: clock,
        logger: logger, closesStorage: storage == nil
    ) { info in
        infoContinuation.yield(info)
    }
    let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            defer { infoContinuation.finish() }
            try await group.run()
        }
        var iterator = infos.makeAsyncIterator()
        guard let info = await iterator.next() else {
            try await tasks.waitForAll()
            throw TestServerError("the server stopped before it listened")
        }
        let testServer = TestServer(
            port: info.port, app: server.app, storage: server.storage, auth: server.auth, dataDirectory: directory)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(testServer))
        } catch {
            result = .failure(error)
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try result.get()
    }
}
