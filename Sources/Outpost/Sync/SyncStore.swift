import Foundation
import OutpostCore

/// The sync state a synced Realm file keeps beside its objects, in its own tables, so that it commits atomically
/// with the objects: the file identity and download cursor (`__outpost_sync_meta`), the upload queue
/// (`__outpost_sync_upload`: one row per committed transaction, until the server acknowledges it), the
/// subscription sets (`__outpost_sync_subscriptions`), the refused transactions (`__outpost_sync_rejections`) and
/// the download messages held back beyond the memory limit until the one that completes them (`__outpost_sync_held`,
/// ``HeldDownloads``).
enum SyncStore {
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

    /// How many rejected transactions the file remembers for `verdict(forTransaction:)` (the newest).
    static let maxRecordedRejections = 10_000

    /// Records refused writes by client version (their `rejectedUpdates` JSON), keeping the newest
    /// ``maxRecordedRejections``.
    static func recordRejections(_ connection: SQLiteConnection, _ rejections: [(Int64, [RejectedUpdate])]) throws {
        for (version, updates) in rejections {
            try connection.cached("INSERT OR REPLACE INTO __outpost_sync_rejections (client_version, rejected) VALUES (?, ?)")
                .run([.integer(version), .text(JSONValue.array(updates.map(\.json)).text)])
        }
        try connection.cached("""
            DELETE FROM __outpost_sync_rejections WHERE client_version <= (
                SELECT client_version FROM __outpost_sync_rejections ORDER BY client_version DESC LIMIT 1 OFFSET ?)
            """).run([.integer(Int64(maxRecordedRejections))])
    }

    /// The recorded refused writes by client version, of the versions above `clientVersion`.
    static func rejections(_ connection: SQLiteConnection, after clientVersion: Int64 = 0) throws -> [Int64: [RejectedUpdate]] {
        var out: [Int64: [RejectedUpdate]] = [:]
        for row in try connection.cached(
            "SELECT client_version, rejected FROM __outpost_sync_rejections WHERE client_version > ?"
        ).rows([.integer(clientVersion)]) {
            guard case .integer(let v) = row[0], case .text(let text) = row[1], case .array(let items)? = JSONValue.parse(text)
            else { continue }
            out[v] = items.compactMap { try? RejectedUpdate(json: $0, path: "rejected") }
        }
        return out
    }

    /// Whether the file has every sync table and `queuedBytes` already (then opening it writes nothing, and waits
    /// for no writer).
    static func isPrepared(_ connection: SQLiteConnection) throws -> Bool {
        let tables = ["__outpost_sync_meta", "__outpost_sync_upload", "__outpost_sync_subscriptions",
                      "__outpost_sync_rejections", "__outpost_sync_held"]
        let present = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (\(tables.map { "'\($0)'" }.joined(separator: ", ")))")
        guard present == .integer(Int64(tables.count)) else { return false }
        return try connection.scalar("SELECT count(*) FROM __outpost_sync_meta WHERE key = 'queuedBytes'") == .integer(1)
    }

    /// Creates the tables (idempotent). A file from before `queuedBytes` gets it from its queue.
    static func prepare(_ connection: SQLiteConnection) throws {
        try connection.execute("BEGIN IMMEDIATE; " + createTables + """
            INSERT OR IGNORE INTO __outpost_sync_meta (key, value)
                SELECT 'queuedBytes', coalesce(sum(length(CAST(instructions AS BLOB))), 0) FROM __outpost_sync_upload
                WHERE NOT EXISTS (SELECT 1 FROM __outpost_sync_meta WHERE key = 'queuedBytes');
            COMMIT;
            """)
    }

    static func integer(_ connection: SQLiteConnection, _ key: String) throws -> Int64? {
        if case .integer(let v) = try connection.scalar("SELECT value FROM __outpost_sync_meta WHERE key = ?", [.text(key)]) {
            return v
        }
        return nil
    }

    static func setInteger(_ connection: SQLiteConnection, _ key: String, _ value: Int64) throws {
        try connection.cached("INSERT OR REPLACE INTO __outpost_sync_meta (key, value) VALUES (?, ?)")
            .run([.text(key), .integer(value)])
    }

    static func cursor(_ connection: SQLiteConnection) throws -> DownloadCursor {
        DownloadCursor(serverVersion: try integer(connection, "cursorServerVersion") ?? 0,
                       clientVersion: try integer(connection, "cursorClientVersion") ?? 0,
                       salt: try integer(connection, "cursorSalt"))
    }

    static func setCursor(_ connection: SQLiteConnection, _ cursor: DownloadCursor) throws {
        try setInteger(connection, "cursorServerVersion", cursor.serverVersion)
        try setInteger(connection, "cursorClientVersion", cursor.clientVersion)
        if let salt = cursor.salt {
            try setInteger(connection, "cursorSalt", salt)
        } else {
            try connection.cached("DELETE FROM __outpost_sync_meta WHERE key = 'cursorSalt'").run([])
        }
    }

    /// A bootstrapped set waits for the answer to its `mark` (in the transaction that applied its bootstrap).
    static func setAwaitingMark(_ connection: SQLiteConnection, _ version: Int64) throws {
        try connection.cached("UPDATE __outpost_sync_subscriptions SET state = 'awaitingMark' WHERE version = ?")
            .run([.integer(version)])
    }

    /// The newest subscription set's version (0: none yet).
    static func latestSubscriptionVersion(_ connection: SQLiteConnection) throws -> Int64 {
        if case .integer(let v) = try connection.scalar("SELECT coalesce(max(version), 0) FROM __outpost_sync_subscriptions") {
            return v
        }
        return 0
    }

    // MARK: Upload queue

    /// The largest changeset text one upload message can carry (``SyncProtocolLimits/maxMessageBytes`` less the
    /// message's envelope). A larger transaction is refused at commit: the server would refuse the message, and the
    /// client would reconnect and send it again for ever.
    static let maxChangesetBytes = SyncProtocolLimits.maxMessageBytes - 1024

    /// Appends one committed transaction to the upload queue and returns its client version.
    @discardableResult
    static func enqueue(_ connection: SQLiteConnection, instructions: UploadInstructions) throws -> Int64 {
        let version = (try integer(connection, "clientVersion") ?? 0) + 1
        let serverVersion = try integer(connection, "cursorServerVersion") ?? 0
        let queryVersion = try latestSubscriptionVersion(connection)
        let timestamp = Int64(Date().timeIntervalSince1970 * 1000)
        var text: [UInt8] = []
        text.reserveCapacity(instructions.json.count + 96)
        UploadChangeset.writeJSON(clientVersion: version, lastServerVersion: serverVersion, timestamp: timestamp,
                                  to: &text) { instructions.writeArray(to: &$0) }
        guard text.count <= maxChangesetBytes else {
            throw Realm.Error(.fail, "The write transaction could not be queued for upload: its changes take \(text.count) bytes, "
                + "more than the \(maxChangesetBytes) bytes one upload message can carry; split it into smaller write transactions")
        }
        try connection.cached(
            "INSERT INTO __outpost_sync_upload (client_version, server_version, query_version, timestamp, instructions) VALUES (?, ?, ?, ?, ?)"
        ).run([.integer(version), .integer(serverVersion), .integer(queryVersion), .integer(timestamp)], text: text)
        try setInteger(connection, "clientVersion", version)
        try setInteger(connection, "queuedBytes", (try integer(connection, "queuedBytes") ?? 0) + Int64(text.count))
        return version
    }

    /// A queued transaction: its client version, the subscription version it was made under, and its
    /// `UploadChangeset` JSON text as stored (sent as is, not parsed again).
    struct QueuedUpload {
        var clientVersion: Int64
        var queryVersion: Int64
        var text: String
    }

    /// Queued transactions above `clientVersion`, oldest first, at most `limit`.
    static func queued(_ connection: SQLiteConnection, after clientVersion: Int64, limit: Int) throws -> [QueuedUpload] {
        let rows = try connection.cached(
            "SELECT client_version, query_version, instructions FROM __outpost_sync_upload WHERE client_version > ? ORDER BY client_version LIMIT ?"
        ).rows([.integer(clientVersion), .integer(Int64(limit))])
        var out: [QueuedUpload] = []
        for row in rows {
            guard case .integer(let v) = row[0], case .integer(let q) = row[1], case .text(let text) = row[2] else { continue }
            out.append(QueuedUpload(clientVersion: v, queryVersion: q, text: text))
        }
        return out
    }

    /// Instructions of every queued transaction above `clientVersion` (the local changes not yet integrated).
    static func pendingInstructions(_ connection: SQLiteConnection, after clientVersion: Int64) throws -> [SyncInstruction] {
        var instructions: [SyncInstruction] = []
        for item in try queued(connection, after: clientVersion, limit: Int.max >> 1) {
            guard let json = JSONValue.parse(item.text) else { continue }
            instructions += try UploadChangeset(json: json, path: "upload").instructions
        }
        return instructions
    }

    /// Drops acknowledged transactions, adding their size to `uploadedBytes` (upload progress).
    static func acknowledge(_ connection: SQLiteConnection, through clientVersion: Int64) throws {
        if case .integer(let bytes)? = try connection.cached(
            "SELECT sum(length(CAST(instructions AS BLOB))) FROM __outpost_sync_upload WHERE client_version <= ?"
        ).rows([.integer(clientVersion)]).first?.first, bytes > 0 {
            try setInteger(connection, "uploadedBytes", (try integer(connection, "uploadedBytes") ?? 0) + bytes)
            try setInteger(connection, "queuedBytes", max(0, (try integer(connection, "queuedBytes") ?? 0) - bytes))
        }
        try connection.cached("DELETE FROM __outpost_sync_upload WHERE client_version <= ?").run([.integer(clientVersion)])
        if clientVersion > (try integer(connection, "uploadAck") ?? 0) {
            try setInteger(connection, "uploadAck", clientVersion)
        }
    }

    static func lastClientVersion(_ connection: SQLiteConnection) throws -> Int64 {
        try integer(connection, "clientVersion") ?? 0
    }
}
