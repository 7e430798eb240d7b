import Foundation
import GRDB
import OutpostCore

/// The embedded storage driver: one SQLite database file, opened with GRDB in WAL mode.
///
/// ```swift
/// let storage = try SQLiteStorage(path: "/var/lib/outpost/server.sqlite")
/// try await storage.prepare()
/// ```
///
/// Reads run concurrently on GRDB's reader connections; writes go through its single writer.
/// ``transaction(appId:_:)`` runs its `async` body against a ``BufferedTransaction``: reads see the committed
/// state overlaid with the body's own writes, which are applied at the end in one GRDB write transaction.
/// Transaction bodies are serialised per app by an in-process lock, so one process must own the file. A body's
/// writes are queued for commit (``CommitQueue``) and the next body of the app runs while they commit, reading
/// them through the queue; ``transaction(appId:_:)`` returns once its own writes are durable. A second process
/// writing the same app's history is detected at commit and fails with ``StorageError/Code/conflict``.
/// ``changeNotifications()`` announces this process's commits. WAL checkpoints run in the background
/// (``WALCheckpointer``), not inside a commit.
public final class SQLiteStorage: ServerStorage {
    let writer: any DatabaseWriter
    /// Nil for in-memory databases, which have no WAL.
    let checkpointer: WALCheckpointer?
    /// The read-only connection of ``readNow(_:_:)``, apart from the pool's readers (nil for in-memory databases,
    /// whose reads go to their one connection).
    let placeReader: DatabaseQueue?
    let appLock = AppTransactionLock()
    let commits = CommitQueue()
    let broadcaster = ChangeBroadcaster()
    let indexedFields = IndexedFields()
    let queryTexts = DocumentQuerySQL.Cache()

    /// Opens (or creates) the database file at `path` as a GRDB `DatabasePool` in WAL mode.
    ///
    /// - Throws: ``StorageError`` with code ``StorageError/Code/unavailable`` when the file cannot be opened.
    public convenience init(path: String) throws {
        // Only the server's user may read the database (users, password hashes, every app's documents). SQLite
        // gives the -wal and -shm files the database file's mode, so creating it 0600 covers all three.
        if path != ":memory:", !FileManager.default.fileExists(atPath: path) {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // The pool keeps its configuration, and with it the checkpointer its connections' WAL hook points to.
        let checkpointer = WALCheckpointer(path: path)
        configuration.prepareDatabase { db in checkpointer.install(on: db.sqliteConnection) }
        let pool: DatabasePool
        let placeReader: DatabaseQueue
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // Every commit is synced to disk before it returns (GRDB's pool sets `synchronous=NORMAL`, which syncs
            // the WAL only at checkpoints): the server acknowledges an upload once its commit returns, and the
            // client then deletes the changeset from its queue, so a commit lost to a power failure would be lost
            // for good. The cost is one `fdatasync` of the WAL per commit (commits are grouped: one per upload
            // message, not per client transaction).
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            var readOnly = Configuration()
            readOnly.readonly = true
            readOnly.busyMode = .timeout(10)
            placeReader = try DatabaseQueue(path: path, configuration: readOnly)
        } catch {
            throw StorageError(.unavailable, "cannot open the SQLite database at \(path)", underlying: error)
        }
        self.init(writer: pool, checkpointer: checkpointer, placeReader: placeReader)
    }

    /// A private in-memory database (a GRDB `DatabaseQueue`), gone when the storage is released. For tests.
    public static func inMemory() throws -> SQLiteStorage {
        do {
            return SQLiteStorage(writer: try DatabaseQueue())
        } catch {
            throw StorageError(.unavailable, "cannot open an in-memory SQLite database", underlying: error)
        }
    }

    init(writer: any DatabaseWriter, checkpointer: WALCheckpointer? = nil, placeReader: DatabaseQueue? = nil) {
        self.writer = writer
        self.checkpointer = checkpointer
        self.placeReader = placeReader
    }

    public func prepare() async throws {
        try await run("create the tables") {
            try await writer.write { db in try Self.createTables(db) }
        }
    }

    public func close() async throws {
        await commits.drain()
        broadcaster.finish()
        try await run("close the database") {
            try await Self.closeOffTheCooperativePool(writer, checkpointer, placeReader)
        }
    }

    /// `DatabasePool.close()` blocks until every reader is returned to the pool, and the checkpointer until a
    /// running checkpoint ends. Blocking a thread of Swift's cooperative pool (two threads on a two-core machine)
    /// could starve the very task that returns a reader, so the close runs on a thread of its own.
    static func closeOffTheCooperativePool(
        _ writer: any DatabaseWriter, _ checkpointer: WALCheckpointer?, _ placeReader: DatabaseQueue?
    ) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let thread = Thread {
                checkpointer?.close()
                do {
                    // The pool is closed even when the in-place reader's close fails; the first error is thrown.
                    let readerClose = Result { try placeReader?.close() }
                    try writer.close()
                    try readerClose.get()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "outpost-sqlite-close"
            thread.start()
        }
    }

    /// Blocks the database's writer queue until the returned function is called: commits handed over meanwhile
    /// wait behind it, reads do not. For tests of pipelined commits. (Outpost-internal.)
    package func holdWriterQueue() -> @Sendable () -> Void {
        let semaphore = DispatchSemaphore(value: 0)
        writer.asyncWriteWithoutTransaction { _ in semaphore.wait() }
        return { semaphore.signal() }
    }

    // MARK: Helpers

    /// Runs a database operation, turning GRDB's errors into ``StorageError``s.
    @discardableResult
    func run<T>(_ what: String, _ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch {
            throw Self.storageError(error, doing: what)
        }
    }

    /// GRDB's errors as ``StorageError``s; anything else (a transaction body's own error, cancellation, a
    /// ``StorageError``) unchanged.
    static func storageError(_ error: any Error, doing what: String) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        if error.resultCode == .SQLITE_CONSTRAINT {
            return StorageError(.duplicate, "could not \(what): a record with the same key exists", underlying: error)
        }
        return StorageError(.database, "could not \(what): \(describe(error))", underlying: error)
    }

    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await run(what) { try await writer.read(body) }
    }

    /// A read of a few rows run on the calling thread. GRDB's `async` read hops to a reader's queue and back to
    /// Swift's cooperative pool, where the return waits behind every job queued meanwhile — under a fan-out, a
    /// hundred sessions' downloads — while the read itself takes tens of microseconds. For the small reads of a
    /// transaction body, which every upload waits for.
    ///
    /// It runs on a connection of its own, never on the pool's readers: an `async` read holds its reader until its
    /// task runs again on the cooperative pool, so a blocking wait for a pool reader on a cooperative thread could
    /// wait for a task that only those blocked threads could run (seen: both threads of a two-core machine waiting
    /// for readers held by such tasks, and the server stopped). The connection is only used here, by calls that
    /// hold it for one short synchronous read, so waiting for it always ends.
    ///
    /// `body` runs one statement, outside a transaction: a single `SELECT` reads one snapshot by itself in WAL mode,
    /// and the `BEGIN`/`COMMIT` around a GRDB `read` cost more than a lookup by key.
    func readNow<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        do {
            if let placeReader { return try placeReader.unsafeRead(body) }
            return try writer.unsafeRead(body)
        } catch {
            throw Self.storageError(error, doing: what)
        }
    }

    func write<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await run(what) { try await writer.write(body) }
    }

    /// The SQLite result code and message, without the statement's arguments (which may hold user data).
    private static func describe(_ error: DatabaseError) -> String {
        return "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "")"
    }
}
