import CSQLite
import Foundation

/// One SQLite connection with a statement cache. Confined to one Realm instance (and so to one thread
/// or actor), or guarded by a lock for frozen Realms.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    private var statementCache: [String: SQLiteStatement] = [:]
    /// Called before any statement is looked up, run or copied from (the Realm writes out the rows it
    /// buffered). Set only while there are some.
    var willRunStatement: (() -> Void)?

    init(path: String, readOnly: Bool = false, create: Bool = true) throws {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)))
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message, sql: nil)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // Writers wait for each other (Realm blocks on the write lock rather than failing).
        sqlite3_busy_timeout(db, 600_000)
        Decimal128Collation.register(on: db)
        Base64BytesCollation.register(on: db)
        FoldFunction.register(on: db)
        GeoFunction.register(on: db)
        MixedCompareFunction.register(on: db)
        MixedSortKeyFunction.register(on: db)
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Runs one or more statements without results.
    func execute(_ sql: String) throws {
        willRunStatement?()
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errmsg)
            throw SQLiteError(code: rc, message: message, sql: sql)
        }
    }

    /// A cached prepared statement for `sql`.
    func cached(_ sql: String) throws -> SQLiteStatement {
        willRunStatement?()
        if let stmt = statementCache[sql] { return stmt }
        let stmt = try SQLiteStatement(connection: self, sql: sql)
        statementCache[sql] = stmt
        return stmt
    }

    /// Drops cached statements (after schema changes).
    func clearStatementCache() {
        statementCache.removeAll()
    }

    var lastInsertRowid: Int64 { sqlite3_last_insert_rowid(handle) }
    var changes: Int { Int(sqlite3_changes(handle)) }
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Single-value query helper.
    func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws -> SQLiteValue {
        let stmt = try cached(sql)
        stmt.reset()
        stmt.bind(values)
        defer { sqlite3_reset(stmt.handle) }
        return try stmt.step() ? stmt.value(at: 0) : .null
    }
}

extension SQLiteConnection {
    /// Copies this connection's view of the database (its open read or write transaction, uncommitted
    /// changes included) into `destination`, replacing its content.
    func backup(into destination: SQLiteConnection) throws {
        willRunStatement?()
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(code: sqlite3_errcode(destination.handle), message: destination.lastErrorMessage, sql: nil)
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            let code = step == SQLITE_DONE ? finish : step
            throw SQLiteError(code: code, message: destination.lastErrorMessage, sql: nil)
        }
    }
}
