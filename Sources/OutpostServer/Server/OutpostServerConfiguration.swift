import Foundation

/// Where and how `outpost-server` runs: the address, the data directory, the app configuration file, the database
/// and the admin key. The command line fills it from its flags.
public struct OutpostServerConfiguration: Sendable, Hashable {
    /// Where the server keeps its data.
    public enum Database: Sendable, Hashable, CustomStringConvertible {
        /// The embedded SQLite database at a path.
        case sqlite(path: String)
        /// A PostgreSQL database (`postgres://user:password@host:port/database`).
        case postgres(url: String)

        /// Reads a `--database` argument: a `postgres://` or `postgresql://` URL, otherwise a SQLite file path.
        public init(argument: String) {
            if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") {
                self = .postgres(url: argument)
            } else {
                self = .sqlite(path: argument)
            }
        }

        /// The database without its password, for logs.
        public var description: String {
            switch self {
            case .sqlite(let path): return "sqlite:\(path)"
            case .postgres(let url):
                guard var components = URLComponents(string: url) else { return "postgres://…" }
                if components.password != nil { components.password = "…" }
                return components.string ?? "postgres://…"
            }
        }
    }

    /// The address to bind (default `127.0.0.1`, local connections only; `0.0.0.0` for every interface).
    public var host: String
    /// The port (default 9090; 0 picks a free port, reported by `onServerRunning`).
    public var port: Int
    /// The data directory (default `./outpost-data`): the signing key, the development app, the SQLite database.
    public var dataDirectory: URL
    /// The app configuration file; nil serves the development app of the data directory
    /// (see ``AppDefinition/loadOrCreateDevelopment(in:)``).
    public var appConfigurationFile: URL?
    /// The database; nil means SQLite at `<data-dir>/outpost.sqlite`.
    public var database: Database?
    /// The admin API key; nil means the key in `<data-dir>/admin-key`, generated on first start.
    public var adminKey: String?
    /// Days the server log is kept (``Housekeeping``; default 10, as Atlas App Services); 0 keeps it for ever.
    public var logRetentionDays: Int
    /// How long a client has to send a whole request head, from the connection's start or the request's first byte
    /// (default 30 s, as a slow mobile link needs a few round trips at most); past it the server answers 408 and
    /// closes the connection.
    public var requestHeadTimeout: Duration
    /// The longest pause between two reads of a request body (default 60 s, a stalled upload on a mobile link);
    /// past it the server answers 408 (when it has not answered yet) and closes the connection.
    public var requestBodyTimeout: Duration
    /// How long a keep-alive connection may wait for its next request (default 75 s: longer than the 60 s clients
    /// such as URLSession keep idle connections, so the client closes first); past it the server closes it.
    /// WebSocket connections do not have it: they ping every 30 s.
    public var idleTimeout: Duration
    /// The largest JSON request body of the client API and the Data API (default 2 MiB); a larger one is answered
    /// 413 and the connection is closed. The event upload has its own limit (``EventUploadRoutes``).
    public var maxRequestBodySize: Int
    /// How many sync connections one user may have open at once (default 128); past it the upgrade is answered 429.
    /// A client opens one connection per synced Realm on each device, so the default leaves room for apps with
    /// many partitions; each connection may hold a message of up to 16 MiB while it arrives.
    public var maxSyncConnectionsPerUser: Int

    public init(
        host: String = "127.0.0.1", port: Int = 9090, dataDirectory: URL = URL(fileURLWithPath: "outpost-data"),
        appConfigurationFile: URL? = nil, database: Database? = nil, adminKey: String? = nil, logRetentionDays: Int = 10,
        requestHeadTimeout: Duration = .seconds(30), requestBodyTimeout: Duration = .seconds(60),
        idleTimeout: Duration = .seconds(75), maxRequestBodySize: Int = 2 * 1024 * 1024,
        maxSyncConnectionsPerUser: Int = 128
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.appConfigurationFile = appConfigurationFile
        self.database = database
        self.adminKey = adminKey
        self.logRetentionDays = logRetentionDays
        self.requestHeadTimeout = requestHeadTimeout
        self.requestBodyTimeout = requestBodyTimeout
        self.idleTimeout = idleTimeout
        self.maxRequestBodySize = maxRequestBodySize
        self.maxSyncConnectionsPerUser = maxSyncConnectionsPerUser
    }

    /// The database to use: the configured one, or SQLite in the data directory.
    public var resolvedDatabase: Database {
        database ?? .sqlite(path: dataDirectory.appendingPathComponent("outpost.sqlite").path)
    }

    /// The app to serve: the configuration file's, or the data directory's development app.
    public func loadAppDefinition() throws(ConfigurationError) -> AppDefinition {
        if let appConfigurationFile { return try AppDefinition(contentsOf: appConfigurationFile) }
        do {
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw ConfigurationError(.unreadableFile, path: "$", "cannot create \(dataDirectory.path): \(error)")
        }
        return try AppDefinition.loadOrCreateDevelopment(in: dataDirectory)
    }

    /// The admin key to use: the configured one, or the one in `<data-dir>/admin-key` (made on first start).
    public func loadAdminKey() throws -> String {
        if let adminKey { return adminKey }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let url = dataDirectory.appendingPathComponent("admin-key")
        if let existing = try? String(contentsOf: url, encoding: .utf8) {
            let key = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            if !key.isEmpty { return key }
        }
        let key = AuthRandom.hex(24)
        guard FileManager.default.createFile(atPath: url.path, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw SigningKeyError(path: url.path, message: "cannot write the admin key file") }
        return key
    }
}
