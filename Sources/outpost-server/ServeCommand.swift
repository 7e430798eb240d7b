import ArgumentParser
import Foundation
import Logging
import OutpostServer
import ServiceLifecycle

/// `outpost-server serve` (the default): parses the flags into an ``OutpostServerConfiguration`` and runs the server
/// until SIGINT or SIGTERM, which shut it down gracefully (exit code 0).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the app (the default when no subcommand is given)."
    )

    @Option(help: "The address to bind.")
    var host = "127.0.0.1"

    @Option(help: "The port (0 picks a free one).")
    var port = 9090

    @Option(name: .customLong("data-dir"), help: "The data directory (signing key, development app, SQLite database).")
    var dataDirectory = "./outpost-data"

    @Option(name: .customLong("config"), help: "The app configuration file (default: the development app).")
    var configFile: String?

    @Option(help: "A SQLite file path or a postgres:// URL (default: <data-dir>/outpost.sqlite).")
    var database: String?

    @Option(name: .customLong("admin-key"), help: "The admin API key (default: generated into <data-dir>/admin-key).")
    var adminKey: String?

    @Option(name: .customLong("log-retention-days"), help: "Days the server log is kept (0: for ever).")
    var logRetentionDays = 10

    @Option(name: .customLong("request-head-timeout"), help: "Seconds a client has to send a request head (408 after).")
    var requestHeadTimeout = 30

    @Option(name: .customLong("request-body-timeout"), help: "Seconds allowed between two reads of a request body (408 after).")
    var requestBodyTimeout = 60

    @Option(name: .customLong("idle-timeout"), help: "Seconds a keep-alive connection may wait for its next request.")
    var idleTimeout = 75

    @Option(name: .customLong("max-request-body-size"), help: "Bytes a JSON request body may have (413 over it).")
    var maxRequestBodySize = 2 * 1024 * 1024

    @Option(name: .customLong("max-sync-connections-per-user"), help: "Sync connections one user may have open (429 over it).")
    var maxSyncConnectionsPerUser = 128

    func validate() throws {
        guard logRetentionDays >= 0 else {
            throw ValidationError("--log-retention-days must be 0 (keep the log for ever) or more, not \(logRetentionDays)")
        }
        let positive = [
            ("--request-head-timeout", requestHeadTimeout), ("--request-body-timeout", requestBodyTimeout),
            ("--idle-timeout", idleTimeout), ("--max-request-body-size", maxRequestBodySize),
            ("--max-sync-connections-per-user", maxSyncConnectionsPerUser),
        ]
        for (flag, value) in positive where value < 1 {
            throw ValidationError("\(flag) must be 1 or more, not \(value)")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
            return handler
        }
        let logger = Logger(label: "outpost-server")
        let configuration = OutpostServerConfiguration(
            host: host, port: port, dataDirectory: URL(fileURLWithPath: dataDirectory),
            appConfigurationFile: configFile.map { URL(fileURLWithPath: $0) },
            database: database.map(OutpostServerConfiguration.Database.init(argument:)), adminKey: adminKey,
            logRetentionDays: logRetentionDays, requestHeadTimeout: .seconds(requestHeadTimeout),
            requestBodyTimeout: .seconds(requestBodyTimeout), idleTimeout: .seconds(idleTimeout),
            maxRequestBodySize: maxRequestBodySize, maxSyncConnectionsPerUser: maxSyncConnectionsPerUser)
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let server = try OutpostServerApplication(
            configuration: configuration, storage: try Self.storage(for: configuration.resolvedDatabase),
            logger: logger
        ) { info in
            print(info.banner)
            fflush(nil)  // standard output is a pipe under supervisors and tests: show the line now
        }
        if ProcessInfo.processInfo.environment["OUTPOST_EXIT_WITH_PARENT"] == "1" { Self.exitWithParent() }
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// With `OUTPOST_EXIT_WITH_PARENT=1` (set by the test support's `OutpostServerProcess`): once the process that
    /// started the server is gone, the server shuts down as on SIGTERM, so a test run that crashed or was killed
    /// leaves no server behind. The parent is polled every second (`PR_SET_PDEATHSIG` would follow the thread that
    /// started the server, which can end long before its process does).
    static func exitWithParent() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { sleep(1) }
            kill(getpid(), SIGTERM)
            // A shutdown that does not finish in time ends the process anyway.
            sleep(30)
            _exit(1)
        }
    }

    /// The storage driver for `--database`: SQLite for a path (the embedded default), PostgreSQL for a URL.
    static func storage(for database: OutpostServerConfiguration.Database) throws -> any ServerStorage {
        switch database {
        case .sqlite(let path):
            return try SQLiteStorage(path: path)
        case .postgres(let url):
            return try PostgresStorage(url: url)
        }
    }
}
