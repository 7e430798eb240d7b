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
    /// (see ``AppConfiguration/loadOrCreateDevelopment(in:)``).
    public var appConfigurationFile: URL?
    /// The database; nil means SQLite at `<data-dir>/outpost.sqlite`.
    public var database: Database?
    /// The admin API key; nil means the key in `<data-dir>/admin-key`, generated on first start.
    public var adminKey: String?
    /// Days the server log is kept (``Housekeeping``; default 10, as Atlas App Services); 0 keeps it for ever.
    public var logRetentionDays: Int

    public init(
        host: String = "127.0.0.1", port: Int = 9090, dataDirectory: URL = URL(fileURLWithPath: "outpost-data"),
        appConfigurationFile: URL? = nil, database: Database? = nil, adminKey: String? = nil, logRetentionDays: Int = 10
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.appConfigurationFile = appConfigurationFile
        self.database = database
        self.adminKey = adminKey
        self.logRetentionDays = logRetentionDays
    }

    /// The database to use: the configured one, or SQLite in the data directory.
    public var resolvedDatabase: Database {
        database ?? .sqlite(path: dataDirectory.appendingPathComponent("outpost.sqlite").path)
    }

    /// The app to serve: the configuration file's, or the data directory's development app.
    public func loadAppConfiguration() throws(ConfigurationError) -> AppConfiguration {
        if let appConfigurationFile { return try AppConfiguration(contentsOf: appConfigurationFile) }
        do {
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw ConfigurationError(.unreadableFile, path: "$", "cannot create \(dataDirectory.path): \(error)")
        }
        return try AppConfiguration.loadOrCreateDevelopment(in: dataDirectory)
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
