import Foundation
import OutpostCore

/// The sync state a synced Realm file keeps beside its objects, in its own tables, so that it commits atomically
/// with the objects: the file identity, download cursor and counters (`__outpost_sync_meta`), the upload queue
/// (`__outpost_sync_upload`: one row per committed transaction, until the server acknowledges it), the subscription
/// sets (`__outpost_sync_subscriptions`), the refused transactions (`__outpost_sync_rejections`) and the download
/// messages held back beyond the memory limit until the one that completes them (`__outpost_sync_held`,
/// ``HeldDownloads``).
///
/// Every statement on these tables is here; the rest of sync asks this type. It runs in whatever transaction is open
/// on its connection: the caller decides what commits together (``RealmInstance/syncWrite(_:)`` for a transaction of
/// its own). Cheap to make: it only holds the connection.
struct SyncFile {
    let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    /// The tables this type owns.
    static let tableNames = [
        "__outpost_sync_meta", "__outpost_sync_upload", "__outpost_sync_subscriptions", "__outpost_sync_rejections",
        "__outpost_sync_held",
    ]

    static let createTables = """
        CREATE TABLE IF NOT EXISTS __outpost_sync_meta (key TEXT PRIMARY KEY, value);
        CREATE TABLE IF NOT EXISTS __outpost_sync_upload (
            client_version INTEGER PRIMARY KEY, server_version INTEGER NOT NULL, query_version INTEGER NOT NULL,
            timestamp INTEGER NOT NULL, instructions TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS __outpost_sync_subscriptions (
            version INTEGER PRIMARY KEY, state TEXT NOT NULL, error TEXT, subscriptions TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS __outpost_sync_rejections (client_version INTEGER PRIMARY KEY, rejected TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS __outpost_sync_held (seq INTEGER PRIMARY KEY, message TEXT NOT NULL);
        """

    /// Whether the file has every sync table and `queuedBytes` already (then opening it writes nothing, and waits
    /// for no writer).
    func isPrepared() throws -> Bool {
        let names = Self.tableNames.map { "'\($0)'" }.joined(separator: ", ")
        let present = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (\(names))")
        guard present == .integer(Int64(Self.tableNames.count)) else { return false }
        return try connection.scalar("SELECT count(*) FROM __outpost_sync_meta WHERE key = 'queuedBytes'") == .integer(1)
    }

    /// Creates the tables (idempotent), in a transaction of its own. A file from before `queuedBytes` gets it from
    /// its queue.
    func prepare() throws {
        try connection.execute("BEGIN IMMEDIATE; " + Self.createTables + """
            INSERT OR IGNORE INTO __outpost_sync_meta (key, value)
                SELECT 'queuedBytes', coalesce(sum(length(CAST(instructions AS BLOB))), 0) FROM __outpost_sync_upload
                WHERE NOT EXISTS (SELECT 1 FROM __outpost_sync_meta WHERE key = 'queuedBytes');
            COMMIT;
            """)
    }
}
