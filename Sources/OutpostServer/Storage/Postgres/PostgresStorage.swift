import Foundation
import Logging
import OutpostCore
import PostgresNIO

/// The PostgreSQL storage driver, for servers that share one database between several processes.
///
/// ```swift
/// let storage = try PostgresStorage(url: "postgres://outpost:secret@db.internal:5432/outpost")
/// try await storage.prepare()
/// // … serve …
/// try await storage.close()
/// ```
///
/// **The storage runs its own client.** Its `PostgresClient` (a connection pool) must be run by a task; the
/// storage starts that task when it is created and cancels it in ``close()``. Call ``close()`` before dropping the
/// storage, or the pool's connections stay open until the process exits.
///
/// **Transactions** are serialised per app: first by an in-process lock (so waiters hold no connection), then,
/// inside the database transaction, by `pg_advisory_xact_lock(hashtextextended('<schema>:<app>', 0))`, so two
/// server processes on one database assign server versions one after another, without gaps or duplicates.
/// The body's writes are buffered (see ``BufferedTransaction``) and applied with one statement at commit.
///
/// **Notifications**: a commit that appended history runs `pg_notify('outpost_changes', '<app>:<version>')` in
/// its transaction; ``changeNotifications()`` LISTENs on one dedicated pooled connection and yields what every
/// process (this one included) announces.
public final class PostgresStorage: ServerStorage {
    public let configuration: Configuration
    let client: PostgresClient
    let logger: Logger
    let appLock = AppTransactionLock()
    let broadcaster = ChangeBroadcaster()
    let indexedFields = IndexedFields()
    let queryTexts = DocumentQuerySQL.Cache()
    let listener: PostgresChangeListener
    let statistics = PostgresStatistics()
    /// Runs the client until ``close()`` cancels it.
    private let clientTask: Task<Void, Never>

    /// The NOTIFY channel: `outpost_changes`, or `outpost_changes_<schema>` for a storage in its own schema.
    public var notificationChannel: String {
        configuration.schema.map { "outpost_changes_\($0)" } ?? "outpost_changes"
    }

    /// Creates a storage and starts the task that runs its connection pool. Nothing connects before the first
    /// query, so this does not fail when the database is down.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.logger = configuration.logger
        let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: configuration.logger)
        self.client = client
        self.clientTask = Task { await client.run() }
        self.listener = PostgresChangeListener(
            client: client, channel: configuration.schema.map { "outpost_changes_\($0)" } ?? "outpost_changes",
            broadcaster: broadcaster, logger: configuration.logger)
    }

    /// Creates a storage from a connection string `postgres://user:password@host:port/database`.
    ///
    /// - Throws: ``StorageError`` with code ``StorageError/Code/invalidConfiguration`` when the URL is malformed.
    public convenience init(url: String, schema: String? = nil) throws {
        var configuration = try Configuration(url: url)
        if let schema { configuration.schema = schema }
        self.init(configuration: configuration)
    }

    public func close() async throws {
        await listener.stop()
        broadcaster.finish()
        clientTask.cancel()
        await clientTask.value
    }

    public func changeNotifications() async throws -> AsyncStream<ChangeNotification> {
        let stream = broadcaster.subscribe()
        try await run("listen for changes") { try await listener.start() }
        return stream
    }

    // MARK: Helpers

    /// Runs a query on a pooled connection and maps its rows.
    func rows<T>(_ what: String, _ query: PostgresQuery, _ transform: (PostgresRow) throws -> T) async throws -> [T] {
        try await run(what) {
            try await client.query(query, logger: logger).collect().map(transform)
        }
    }

    func execute(_ what: String, _ query: PostgresQuery) async throws {
        // Read to the end, so that an error that comes with the rows is not lost.
        _ = try await run(what) { try await client.query(query, logger: logger).collect() }
    }

    /// Runs a query whose single column is a JSON body and decodes each row's body.
    func bodies<T: Decodable>(_ what: String, _ query: PostgresQuery, as type: T.Type) async throws -> [T] {
        let texts = try await rows(what, query) { try $0.decode(String.self) }
        return try texts.map { try StorageCoding.decode(T.self, from: $0, what: what) }
    }

    /// Runs a database operation, turning postgres-nio's errors into ``StorageError``s.
    @discardableResult
    func run<T>(_ what: String, _ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as StorageError {
            throw error
        } catch let error as PSQLError {
            throw Self.storageError(error, what: what)
        } catch let error as PostgresDecodingError {
            throw StorageError(.database, "could not \(what): a column has an unexpected type", underlying: error)
        }
        // Anything else (a transaction body's own error, cancellation) passes through unchanged.
    }

    static func storageError(_ error: PSQLError, what: String) -> StorageError {
        if let state = error.serverInfo?[.sqlState] {
            let message = error.serverInfo?[.message] ?? ""
            if state == "23505" {
                return StorageError(.duplicate, "could not \(what): a record with the same key exists", underlying: error)
            }
            return StorageError(.database, "could not \(what): PostgreSQL error \(state): \(message)", underlying: error)
        }
        return StorageError(.unavailable, "could not \(what): \(error.code)", underlying: error)
    }

    /// The advisory lock key text of an app (hashed by PostgreSQL with `hashtextextended`).
    func lockKey(appId: String) -> String {
        "outpost:\(configuration.schema ?? ""):\(appId)"
    }
}
