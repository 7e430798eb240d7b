import CSQLite
import Foundation

/// A prepared statement. Used only by the connection that prepared it, on its confined thread.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError(code: rc, message: connection.lastErrorMessage, sql: sql)
        }
        self.handle = stmt
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    @inline(__always)
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    @inline(__always)
    func bind(_ value: SQLiteValue, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .real(let v): sqlite3_bind_double(handle, index, v)
        case .text(let v):
            var text = v
            text.withUTF8 { bindText($0, at: index) }
        case .blob(let v) where v.isEmpty:
            sqlite3_bind_zeroblob(handle, index, 0)  // a nil pointer would bind NULL
        case .blob(let v):
            v.withUnsafeBytes { raw in
                _ = sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), sqliteTransient)
            }
        }
    }

    @inline(__always)
    func bindInt(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ values: [SQLiteValue]) {
        for (i, v) in values.enumerated() { bind(v, at: Int32(i + 1)) }
    }

    /// Steps once; returns true when a row is available.
    @inline(__always)
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw SQLiteError(code: rc, message: connection.lastErrorMessage, sql: sql)
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [SQLiteValue] = []) throws {
        reset()
        bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Runs the statement with `values` and then, as the last parameter, `utf8` as text: bytes known to be UTF-8
    /// (written by Outpost) are bound as they are, without a `String` made of them first.
    func run(_ values: [SQLiteValue], text utf8: [UInt8]) throws {
        reset()
        bind(values)
        defer { sqlite3_reset(handle) }
        utf8.withUnsafeBufferPointer { bindText($0, at: Int32(values.count + 1)) }
        while try step() {}
    }

    /// Binds UTF-8 bytes as text with their byte count: as a C string the text ended at the first NUL, and a
    /// string holding one was stored cut short.
    private func bindText(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int32) {
        guard let base = utf8.baseAddress else {
            _ = sqlite3_bind_text(handle, index, "", 0, sqliteTransient)  // a nil pointer would bind NULL
            return
        }
        base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
            _ = sqlite3_bind_text(handle, index, $0, Int32(utf8.count), sqliteTransient)
        }
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    @inline(__always)
    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    @inline(__always)
    func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    @inline(__always)
    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func value(at column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let ptr = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: ptr, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let ptr = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: ptr, count: count)))
        default: return .null
        }
    }

    /// All rows of the statement's result, each as its column values.
    func rows(_ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        reset()
        bind(values)
        defer { sqlite3_reset(handle) }
        var out: [[SQLiteValue]] = []
        let n = columnCount
        while try step() {
            out.append((0..<n).map { value(at: $0) })
        }
        return out
    }
}

/// `SQLITE_TRANSIENT` is a macro Swift does not import.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
