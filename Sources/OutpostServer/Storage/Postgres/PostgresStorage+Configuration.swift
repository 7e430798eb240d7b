import Foundation
import Logging
import PostgresNIO

extension PostgresStorage {
    /// Where the PostgreSQL database is and how to use it.
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        /// The schema that holds Outpost's tables; ``PostgresStorage/prepare()`` creates it. nil uses the
        /// connection's default search path (normally `public`). Storages with different schemas in one database
        /// are independent: their advisory locks and notification channels differ too.
        public var schema: String?
        public var tls: PostgresClient.Configuration.TLS
        /// The most connections the storage's pool opens; one more is used for LISTEN.
        public var maximumConnections: Int
        /// Where postgres-nio logs its background work. Silent by default.
        public var logger: Logger

        public init(
            host: String, port: Int = 5432, username: String, password: String?, database: String,
            schema: String? = nil, tls: PostgresClient.Configuration.TLS = .disable, maximumConnections: Int = 20,
            logger: Logger = PostgresStorage.silentLogger
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.schema = schema
            self.tls = tls
            self.maximumConnections = maximumConnections
            self.logger = logger
        }

        /// Reads a connection string `postgres://user:password@host:port/database` (also `postgresql://`).
        ///
        /// The password may be absent, the port defaults to 5432; user, password and database are percent-decoded.
        /// Query options: `schema=<name>` and `sslmode=disable|prefer|require` (default `disable`).
        ///
        /// - Throws: ``StorageError`` with code ``StorageError/Code/invalidConfiguration`` saying what is wrong.
        ///   The message never repeats the password.
        public init(url: String) throws {
            func invalid(_ problem: String) -> StorageError {
                StorageError(.invalidConfiguration, "malformed PostgreSQL URL: \(problem)")
            }
            guard let components = URLComponents(string: url) else {
                throw invalid("expected postgres://user:password@host:port/database")
            }
            guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
                throw invalid("the scheme must be postgres:// or postgresql://")
            }
            guard let host = components.host, !host.isEmpty else { throw invalid("the host is missing") }
            guard let user = components.user, !user.isEmpty else { throw invalid("the user name is missing") }
            if let port = components.port, !(1...65535).contains(port) { throw invalid("the port is out of range") }
            let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            guard !database.isEmpty, !database.contains("/") else {
                throw invalid("the path must name the database, as /database")
            }
            var schema: String?
            var tls = PostgresClient.Configuration.TLS.disable
            for item in components.queryItems ?? [] {
                switch (item.name, item.value ?? "") {
                case ("schema", let value) where !value.isEmpty: schema = value
                case ("sslmode", "disable"): tls = .disable
                case ("sslmode", "prefer"): tls = .prefer(.makeClientConfiguration())
                case ("sslmode", "require"): tls = .require(.makeClientConfiguration())
                default: throw invalid("unsupported option '\(item.name)'")
                }
            }
            self.init(
                host: host, port: components.port ?? 5432,
                username: user, password: components.password, database: database, schema: schema, tls: tls)
        }

        var clientConfiguration: PostgresClient.Configuration {
            var configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
            configuration.options.maximumConnections = maximumConnections + 1
            if let schema {
                configuration.options.additionalStartupParameters = [("search_path", PostgresStorage.quoted(schema))]
            }
            return configuration
        }
    }

    /// A logger that drops everything.
    public static let silentLogger = Logger(label: "outpost.storage.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An SQL identifier in double quotes.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
