import Crypto
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The Outpost server as a swift-service-lifecycle `Service`: the client API (auth), `/health`, `/metrics` and the
/// sync WebSocket route over one app, one storage and one sync handler.
///
/// ```swift
/// let server = try OutpostServerApplication(configuration: .init(port: 0), storage: storage) { info in
///     print(info.banner)
/// }
/// try await ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint],
///                                             logger: logger)).run()
/// ```
///
/// `run()` prepares the storage, serves until the task is cancelled or a graceful shutdown is triggered, lets
/// in-flight requests finish, then closes the storage (unless `closesStorage` is false).
public struct OutpostServerApplication: Service {
    /// How long (in seconds) a sync connection may take to close once a graceful shutdown has begun: the server
    /// sends each client a close frame, and closes the connections of clients that have not answered by then, so
    /// a client that stopped reading its socket cannot hold the shutdown up. Outpost-only.
    public static let connectionShutdownGrace: Int64 = 10

    /// Adds routes to the HTTP router (for parts that live elsewhere, like the Data API and the admin API).
    public typealias RouteInstaller = @Sendable (Router<OutpostRequestContext>, OutpostServerApplication) -> Void

    public let configuration: OutpostServerConfiguration
    /// The served app.
    public let app: AppDefinition
    /// Where users, sessions, documents and logs live.
    public let storage: any ServerStorage
    /// Logins, tokens, API keys; ``AuthService/authenticate(accessToken:)`` turns a bearer token into a user.
    public let auth: AuthService
    /// The admin key (configured, or read from / generated into the data directory).
    public let adminKey: String
    public let syncHandler: any SyncConnectionHandler
    public let logger: Logger
    /// Runs the app's functions (nil when it has none).
    public let functionRuntime: FunctionRuntime?
    /// The open sync connections of each user (``OutpostServerConfiguration/maxSyncConnectionsPerUser``).
    let syncConnectionQuota: SyncConnectionQuota
    let closesStorage: Bool
    let routeInstallers: [RouteInstaller]
    let onServerRunning: @Sendable (ServerInfo) async -> Void

    /// Loads the app configuration (unless given), the signing key and the admin key.
    ///
    /// - Parameters:
    ///   - app: the app to serve; nil loads it as ``OutpostServerConfiguration/loadAppDefinition()`` says.
    ///   - storage: the storage driver; `run()` calls its `prepare()`.
    ///   - syncHandler: serves sync WebSocket connections (default: a ``SyncEngine`` for the app over the storage,
    ///     which `run()` also runs).
    ///   - passwordHasher: PBKDF2 settings (tests pass a low iteration count).
    ///   - clock: the time for tokens.
    ///   - closesStorage: whether `run()` closes the storage when it ends.
    ///   - routeInstallers: more routes for the HTTP router.
    ///   - onServerRunning: called once the server listens, with the bound port.
    public init(
        configuration: OutpostServerConfiguration,
        app: AppDefinition? = nil,
        storage: any ServerStorage,
        syncHandler: (any SyncConnectionHandler)? = nil,
        passwordHasher: PasswordHasher = PasswordHasher(),
        clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "outpost-server"),
        closesStorage: Bool = true,
        routeInstallers: [RouteInstaller] = [],
        onServerRunning: @escaping @Sendable (ServerInfo) async -> Void = { _ in }
    ) throws {
        let app = try app ?? configuration.loadAppDefinition()
        let key = try SigningKeyFile.loadOrCreate(in: configuration.dataDirectory)
        self.configuration = configuration
        self.app = app
        self.storage = storage
        self.auth = AuthService(
            app: app, storage: storage, signingKey: key, passwordHasher: passwordHasher, clock: clock, logger: logger)
        self.adminKey = try configuration.loadAdminKey()
        if let syncHandler {
            self.syncHandler = syncHandler
        } else {
            let settings = try SyncAppSettings(app: app)
            self.syncHandler = SyncEngine(storage: storage, logger: logger) { $0 == settings.appId ? settings : nil }
        }
        self.syncConnectionQuota = SyncConnectionQuota(limit: configuration.maxSyncConnectionsPerUser)
        self.functionRuntime = app.functions.definitions.isEmpty ? nil : FunctionRuntime(app: app)
        self.logger = logger
        self.closesStorage = closesStorage
        self.routeInstallers = routeInstallers
        self.onServerRunning = onServerRunning
    }

    /// Deletes old log records, expired sessions and old audit events of the app (``Housekeeping``).
    public var housekeeping: Housekeeping {
        let days = configuration.logRetentionDays
        return Housekeeping(appId: app.appId, storage: storage, logRetention: days > 0 ? .seconds(days * 86_400) : nil,
                            eventRetention: app.events.retentionDays.map { .seconds($0 * 86_400) },
                            clock: auth.clock, logger: logger)
    }

    public func run() async throws {
        ServerMetrics.bootstrap()
        try await storage.prepare()
        try await storage.createFieldIndexes(app.indexedFieldNames)
        if let problem = await functionRuntime?.reportAvailability(logger: logger) {
            try? await storage.appendLog(LogRecord(appId: app.appId, kind: "function", level: "error", message: problem.message))
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let engine = syncHandler as? SyncEngine { group.addTask { try await engine.run() } }
                let housekeeping = housekeeping
                group.addTask { await housekeeping.run() }
                try await makeApplication().run()
                group.cancelAll()
            }
        } catch {
            await functionRuntime?.shutdown()
            if closesStorage { try? await storage.close() }
            throw error
        }
        await functionRuntime?.shutdown()
        if closesStorage { try await storage.close() }
    }

    /// The HTTP router with every route (useful to test routes without a socket).
    public func makeRouter() -> Router<OutpostRequestContext> {
        let router = Router(context: OutpostRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: RequestBodyLimitMiddleware(limit: configuration.maxRequestBodySize))
        HealthRoutes().register(on: router)
        ClientAPIRoutes(auth: auth).register(on: router)
        SyncRoutes(auth: auth, handler: syncHandler, logger: logger).registerRejection(on: router)
        DataAPIRoutes(application: self).register(on: router)
        FunctionRoutes(application: self).register(on: router)
        EventUploadRoutes(application: self).register(on: router)
        AdminRoutes(application: self).register(on: router)
        AdminConsoleRoutes().register(on: router)
        for install in routeInstallers { install(router, self) }
        return router
    }

    func makeApplication() -> some ApplicationProtocol {
        let webSocketRouter = Router(context: OutpostRequestContext.self)
        SyncRoutes(auth: auth, handler: syncHandler, logger: logger)
            .registerUpgrade(on: webSocketRouter, quota: syncConnectionQuota)
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: SyncRoutes.maxMessageSize + 1024,
            extensions: [.nonNegotiatedExtension { WebSocketUnmasking() }],
            autoPing: .enabled(timePeriod: .seconds(30)))
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: [HTTPExchangeObserver()]), ws: webSocket)
        let webSocketResponder = webSocketRouter.buildResponder()
        let (head, body, idle) = (
            TimeAmount(configuration.requestHeadTimeout), TimeAmount(configuration.requestBodyTimeout),
            TimeAmount(configuration.idleTimeout)
        )
        let server = HTTPServerBuilder { responder in
            OutpostHTTPChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder, configuration: channelConfiguration),
                headTimeout: head, bodyTimeout: body, idleTimeout: idle)
        }
        let host = configuration.host
        let appId = app.appId
        let adminKey = adminKey
        let onServerRunning = onServerRunning
        return Application(
            router: makeRouter(),
            server: server,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "outpost-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                await onServerRunning(ServerInfo(host: host, port: port, appId: appId, adminKey: adminKey))
            },
            logger: logger
        )
    }
}
