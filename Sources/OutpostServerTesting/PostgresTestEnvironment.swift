import Foundation
import OutpostServer

/// The PostgreSQL server that tests use, read from the libpq variables `PGHOST`, `PGPORT`, `PGUSER`,
/// `PGPASSWORD` and `PGDATABASE` (`.ci/run` starts a throwaway cluster and exports them).
///
/// Without them, PostgreSQL tests are disabled with ``disabledReason`` on a developer machine, but when `CI` is
/// set they must run: ``current()`` then throws, so the tests fail instead of silently skipping.
///
/// ```swift
/// @Test(.enabled(if: PostgresTestEnvironment.shouldRun, Comment(rawValue: PostgresTestEnvironment.disabledReason)))
/// func roundTrip() async throws {
///     try await PostgresTestEnvironment.current().withStorage { storage in … }
/// }
/// ```
public struct PostgresTestEnvironment: Sendable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String

    /// The connection string `postgres://user:password@host:port/database`, as `outpost-server --database` takes it.
    public var url: String {
        let user = username.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? username
        let secret = password.map { ":" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? $0) } ?? ""
        return "postgres://\(user)\(secret)@\(host):\(port)/\(database)"
    }

    /// The variables that must be set.
    public static let variables = ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE"]

    public static let disabledReason =
        "PostgreSQL tests need PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE (.ci/run starts a cluster)"

    /// Whether the variables are set.
    public static var isConfigured: Bool { (try? current()) != nil }

    /// Whether this is a CI run (`CI` is set), where PostgreSQL tests must never be skipped.
    public static var isCI: Bool {
        guard let ci = ProcessInfo.processInfo.environment["CI"] else { return false }
        return !ci.isEmpty && ci.lowercased() != "false" && ci != "0"
    }

    /// Whether PostgreSQL tests should run: when configured, and always on CI (where they then fail if not).
    public static var shouldRun: Bool { isConfigured || isCI }

    /// The configured server.
    ///
    /// - Throws: ``StorageError`` with code ``StorageError/Code/invalidConfiguration`` naming the missing
    ///   variables.
    public static func current() throws -> PostgresTestEnvironment {
        let environment = ProcessInfo.processInfo.environment
        let missing = variables.filter { (environment[$0] ?? "").isEmpty }
        guard missing.isEmpty else {
            throw StorageError(
                .invalidConfiguration,
                "PostgreSQL tests need \(missing.joined(separator: ", ")) to be set\(isCI ? " (CI is set, so this fails)" : "")")
        }
        guard let port = Int(environment["PGPORT"]!) else {
            throw StorageError(.invalidConfiguration, "PGPORT is not a port number")
        }
        return PostgresTestEnvironment(
            host: environment["PGHOST"]!, port: port, username: environment["PGUSER"]!,
            password: environment["PGPASSWORD"], database: environment["PGDATABASE"]!)
    }

    /// A storage configuration for a new, uniquely named schema (`outpost_test_<random>`).
    public func configuration(schema: String = PostgresTestEnvironment.uniqueSchemaName()) -> PostgresStorage.Configuration {
        PostgresStorage.Configuration(
            host: host, port: port, username: username, password: password, database: database, schema: schema)
    }

    /// `outpost_test_` and 12 random lowercase hex digits.
    public static func uniqueSchemaName() -> String {
        "outpost_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
    }

    /// Runs `body` with a prepared storage in a fresh schema, then closes it and drops the schema.
    public func withStorage<T>(_ body: (PostgresStorage) async throws -> T) async throws -> T {
        let schema = Self.uniqueSchemaName()
        let storage = PostgresStorage(configuration: configuration(schema: schema))
        do {
            try await storage.prepare()
            let result = try await body(storage)
            try await storage.dropSchema()
            try await storage.close()
            return result
        } catch {
            try? await storage.dropSchema()
            try? await storage.close()
            throw error
        }
    }
}
