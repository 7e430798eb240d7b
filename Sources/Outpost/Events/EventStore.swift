import Foundation
import OutpostCore

/// The on-device event store of one (app, event user, partition prefix): a directory of SQLite shard files
/// `<ObjectId>.sqlite`, each holding readable `AuditEvent` rows. Events are appended to the newest shard; once it
/// passes `maxShardSize` bytes a new shard is started. Uploaded events are deleted from their shard once the
/// server acknowledged them, and a shard file is deleted when it is empty and no process writes to it any more
/// (the writing process holds `<shard>.lock`). Shared process-wide per directory.
final class EventStore: @unchecked Sendable {
    // @unchecked Sendable: `current`, `maxShardSize`, `uploader` and `unCheckpointedBytes` are guarded by `lock`;
    // the rest is immutable.

    let directory: URL
    let partitionPrefix: String
    private let lock = NSLock()
    private var maxShardSizeLocked: Int
    private var current: (id: ObjectId, connection: SQLiteConnection, lock: SyncFileLock)?
    private var uploaderLocked: EventUploader?
    /// About how much was appended to the current shard's write-ahead log since its last checkpoint.
    private var unCheckpointedBytes = 0
    /// The log is copied into the shard by ``checkpointIfNeeded()`` past this size, not by the commit that grows it.
    static let checkpointBytes = 4 * 1024 * 1024
    /// The size a shard's log file is cut back to when it starts over after a checkpoint (SQLite's
    /// `journal_size_limit`): room for one ``checkpointBytes`` cycle, so the file is normally written in place.
    static let logSizeLimit = 2 * checkpointBytes

    init(directory: URL, partitionPrefix: String, maxShardSize: Int) {
        self.directory = directory
        self.partitionPrefix = partitionPrefix
        self.maxShardSizeLocked = maxShardSize
    }

    var maxShardSize: Int {
        get { lock.withLock { maxShardSizeLocked } }
        set { lock.withLock { maxShardSizeLocked = newValue } }
    }

    /// The shard files, oldest first (ObjectId names sort by creation).
    var shardFiles: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".sqlite") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// The partition value of a shard: `<prefix>-<ObjectId>`.
    func partitionValue(ofShard url: URL) -> String {
        "\(partitionPrefix)-\(url.deletingPathExtension().lastPathComponent)"
    }

    /// The largest event the store accepts (the original's upload cap, 16 MiB + 1).
    static let maxEventSize = 16 * 1024 * 1024 + 1

    // MARK: Upload

    /// The store's uploader, created for the event user when a Realm with events opens; it then uploads every
    /// shard, leftovers of earlier runs included. A store without a user (a local Realm) keeps its events.
    func attach(user: User, configuration: EventConfiguration, log: @escaping @Sendable (SyncLogLevel, String) -> Void) {
        let uploader = lock.withLock { () -> EventUploader in
            if let existing = uploaderLocked { return existing }
            let created = EventUploader(store: self)
            uploaderLocked = created
            return created
        }
        uploader.configure(user: user, errorHandler: configuration.errorHandler, log: log)
        uploader.kick()
    }

    var uploader: EventUploader? { lock.withLock { uploaderLocked } }

    /// Up to `limit` events of a shard (about `maxBytes` at most, but at least one), in `_id` order; only those
    /// after the `_id` `after` when it is given (the uploader reads the next batch while the server stores the
    /// one before, which is still in the shard).
    func pendingEvents(inShard url: URL, after: ObjectId? = nil, limit: Int, maxBytes: Int) throws -> [StoredEvent] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }  // another process finished it
        return try withShard(url) { connection in
            guard Self.hasEventTable(connection) else { return [] }
            let statement = try connection.cached(
                "SELECT _id, timestamp, activity, event, data, metadata FROM AuditEvent WHERE _id > ? ORDER BY _id LIMIT ?")
            var events: [StoredEvent] = []
            var bytes = 0
            for row in try statement.rows([.text(after?.stringValue ?? ""), .integer(Int64(limit))]) {
                guard let event = Self.event(row) else { continue }
                bytes += event.estimatedSize
                if bytes > maxBytes && !events.isEmpty { break }
                events.append(event)
            }
            return events
        }
    }

    /// Deletes events the server acknowledged, in one transaction.
    func acknowledge(_ ids: [ObjectId], inShard url: URL) throws {
        try withShard(url) { connection in
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let delete = try connection.cached("DELETE FROM AuditEvent WHERE _id = ?")
                for id in ids { try delete.run([.text(id.stringValue)]) }
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Deletes a shard that holds no event and that no other process writes to (this process's current shard is
    /// closed first; the next event starts a new one); true when the shard is gone.
    @discardableResult
    func removeIfFinished(_ url: URL) -> Bool {
        lock.withLock {
            let id = url.deletingPathExtension().lastPathComponent
            let fileLock: SyncFileLock
            if let current, current.id.stringValue == id {
                // The shard being written to: once it is uploaded, the next event starts a new one.
                guard case .integer(0)? = try? current.connection.scalar("SELECT count(*) FROM AuditEvent") else {
                    return false
                }
                fileLock = current.lock
                self.current = nil
            } else {
                fileLock = SyncFileLock(lockPath: url.path + ".lock")
                guard fileLock.tryAcquire() else { return false }
            }
            defer {
                try? FileManager.default.removeItem(atPath: fileLock.path)
                fileLock.release()
            }
            guard FileManager.default.fileExists(atPath: url.path) else { return true }
            do {
                let connection = try SQLiteConnection(path: url.path)
                if Self.hasEventTable(connection) {
                    guard case .integer(0) = try connection.scalar("SELECT count(*) FROM AuditEvent") else { return false }
                }
            } catch {
                return false
            }
            for suffix in ["-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            return (try? FileManager.default.removeItem(at: url)) != nil
        }
    }

    /// Whether the shard has its table: a process killed while creating a shard leaves a file without one, which
    /// holds no event.
    private static func hasEventTable(_ connection: SQLiteConnection) -> Bool {
        if case .integer(let n)? = try? connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'AuditEvent'"), n > 0 { return true }
        return false
    }

    /// Runs `body` with a connection to the shard: the writer's own for the current shard (under the lock), or a
    /// connection of its own for another one.
    private func withShard<T>(_ url: URL, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try lock.withLock {
            if let current, url.deletingPathExtension().lastPathComponent == current.id.stringValue {
                return try body(current.connection)
            }
            // Not created again if another process deleted it in the meantime.
            return try body(try SQLiteConnection(path: url.path, create: false))
        }
    }

    /// Appends events in one SQLite transaction: when this returns, they are durable; when it throws, none is
    /// stored.
    func append(_ events: [StoredEvent]) throws {
        if let big = events.first(where: { $0.estimatedSize > Self.maxEventSize }) {
            throw Realm.Error(.invalidInput,
                "An event of activity '\(big.activity)' is about \(big.estimatedSize) bytes; events may be at most "
                    + "\(Self.maxEventSize) bytes (the server's upload limit)")
        }
        try lock.withLock {
            let connection = try currentShardLocked()
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let insert = try connection.cached(
                    "INSERT INTO AuditEvent (_id, timestamp, activity, event, data, metadata) VALUES (?, ?, ?, ?, ?, ?)")
                for event in events {
                    unCheckpointedBytes += 128 + (event.data?.utf8.count ?? 0)
                    try insert.run([
                        .text(event.id.stringValue), .text(EventSerializer.timestamp(event.timestamp)),
                        .text(event.activity), event.event.map { .text($0) } ?? .null,
                        event.data.map { .text($0) } ?? .null,
                        event.metadata.isEmpty ? .null : .text(JSONValue.object(event.metadata.mapValues { .string($0) }).text),
                    ])
                }
                try connection.execute("COMMIT")
                uploaderLocked?.kick()
            } catch {
                try? connection.execute("ROLLBACK")
                throw Realm.Error(.fail, "Events could not be stored in '\(directory.path)': \(error)")
            }
        }
    }

    /// Copies the current shard's write-ahead log into it once the log has grown past ``checkpointBytes``. Called
    /// on the event worker after a completion, so commits do not wait for it.
    ///
    /// The checkpoint is passive and leaves the log file in place: the next scope writes the log from its start
    /// again, over pages the file already has, so its sync need not also record a new file size (a truncating
    /// checkpoint made every later commit grow the file; ≈ 0.1 ms more per scope here). `journal_size_limit` cuts a
    /// log that one very large scope made long back to ``logSizeLimit``.
    func checkpointIfNeeded() {
        lock.withLock {
            guard let current, unCheckpointedBytes >= Self.checkpointBytes else { return }
            unCheckpointedBytes = 0
            try? current.connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
    }

    /// The shard to write to, rotating past the size limit (checked before each write, so a shard may end a
    /// little over it). The size is the database's pages, the ones still in the write-ahead log included.
    private func currentShardLocked() throws -> SQLiteConnection {
        if let current {
            let size = try? current.connection.scalar(
                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
            guard case .integer(let bytes)? = size, bytes >= maxShardSizeLocked else { return current.connection }
            // A finished shard becomes a single self-contained file (log checkpointed, rollback journal mode).
            try? current.connection.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE")
            current.lock.release()
            self.current = nil
            uploaderLocked?.kick()
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let id = ObjectId.generate()
            let path = directory.appendingPathComponent("\(id.stringValue).sqlite").path
            let fileLock = SyncFileLock(lockPath: path + ".lock")
            _ = fileLock.tryAcquire()  // a fresh name: nobody else has it
            let connection = try SQLiteConnection(path: path)
            // A write-ahead log with full sync: a committed scope survives a crash or power loss, at the cost of
            // one sync of the log per scope.
            try connection.execute("""
                PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA wal_autocheckpoint=0;
                PRAGMA journal_size_limit=\(Self.logSizeLimit)
                """)
            unCheckpointedBytes = 0
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS AuditEvent (_id TEXT PRIMARY KEY NOT NULL, timestamp TEXT NOT NULL,
                    activity TEXT NOT NULL, event TEXT, data TEXT, metadata TEXT)
                """)
            current = (id, connection, fileLock)
            return connection
        } catch {
            throw Realm.Error(.fail, "The event store at '\(directory.path)' could not open a shard: \(error)")
        }
    }

    /// Every event of a shard, in `_id` order.
    static func events(inShard url: URL) throws -> [StoredEvent] {
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        let rows = try connection.cached("SELECT _id, timestamp, activity, event, data, metadata FROM AuditEvent ORDER BY _id")
            .rows()
        return rows.compactMap(event)
    }

    /// One stored row as an event (nil for a row that is not one).
    static func event(_ row: [SQLiteValue]) -> StoredEvent? {
        guard case .text(let id) = row[0], let oid = try? ObjectId(string: id), case .text(let ts) = row[1],
            let timestamp = EventSerializer.date(fromTimestamp: ts), case .text(let activity) = row[2]
        else { return nil }
        var metadata: [String: String] = [:]
        if case .text(let m) = row[5], case .object(let fields)? = JSONValue.parse(m) {
            for (key, value) in fields { if case .string(let s) = value { metadata[key] = s } }
        }
        func text(_ v: SQLiteValue) -> String? { if case .text(let s) = v { s } else { nil } }
        return StoredEvent(id: oid, timestamp: timestamp, activity: activity, event: text(row[3]),
                           data: text(row[4]), metadata: metadata)
    }
}

/// The process-wide event stores, one per directory.
enum EventStoreRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var stores: [String: EventStore] = [:]  // guarded by `lock`

    static func store(directory: URL, partitionPrefix: String, maxShardSize: Int) -> EventStore {
        lock.withLock {
            if let store = stores[directory.path] { return store }
            let store = EventStore(directory: directory, partitionPrefix: partitionPrefix, maxShardSize: maxShardSize)
            stores[directory.path] = store
            return store
        }
    }
}
