import CSQLite
import GRDB

/// Runs one of GRDB's prepared statements once per row, with the row's values bound through SQLite's C API in
/// place (`SQLITE_STATIC`: SQLite reads each string's bytes where they are, during the step).
///
/// The commit of a large upload writes tens of thousands of rows; through GRDB's `StatementArguments` each row cost
/// an array of `DatabaseValue`s and a copy of every string (≈ 8 % of the server's CPU in `outpost-sync-bench
/// upload`). The statement is reset before and after every row, so it can go back and forth between this and GRDB.
enum DirectRows {
    /// One value of a row.
    enum Argument: Sendable {
        case text(String)
        /// Text already in UTF-8 (valid, as the server's own JSON writers make it).
        case utf8([UInt8])
        case integer(Int64)
    }

    /// Runs `statement` with `arguments` bound to its parameters 1, 2, …; throws GRDB's `DatabaseError` when the
    /// step fails (nothing of the row is written then).
    static func run(_ statement: Statement, _ arguments: [Argument], in db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)  // GRDB resets a statement before it runs it again, not after
        try bind(arguments[...], from: 1, to: handle, in: db) { try step(statement, in: db) }
    }

    /// Runs the query `statement` with `arguments` bound in place and returns its rows' first two columns as text
    /// (a key and a body): a small lookup without a GRDB `Row` and `StatementArguments` per call.
    static func textPairs(_ statement: Statement, _ arguments: [Argument], in db: Database) throws -> [(key: String, body: String)] {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var rows: [(key: String, body: String)] = []
        try bind(arguments[...], from: 1, to: handle, in: db) {
            defer {
                sqlite3_reset(handle)
                sqlite3_clear_bindings(handle)  // the texts were bound in place and are gone after this call
            }
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { return }
                guard code == SQLITE_ROW else { throw error(code, statement, db) }
                rows.append((text(handle, 0), text(handle, 1)))
            }
        }
        return rows
    }

    private static func text(_ handle: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Binds `value` to parameter `index` for every run that follows until it is bound again (`sqlite3_reset`
    /// keeps bindings; SQLite copies the text).
    static func bindConstant(_ statement: Statement, _ value: String, at index: Int32, in db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        try check(sqlite3_bind_text(handle, index, value, Int32(value.utf8.count), transient), db)
    }

    /// Runs `statement` once with three texts bound in place to parameters `index`, `index + 1` and `index + 2`;
    /// the parameters before `index` keep what ``bindConstant(_:_:at:in:)`` bound. The same as
    /// ``run(_:_:in:)`` without building an array of arguments for the row.
    static func run(_ statement: Statement, texts first: String, _ second: String, _ third: String, from index: Int32,
                    in db: Database) throws {
        let handle = statement.sqliteStatement
        var (first, second, third) = (first, second, third)
        try first.withUTF8 { a in
            try second.withUTF8 { b in
                try third.withUTF8 { c in
                    try bindText(a, at: index, to: handle, in: db)
                    try bindText(b, at: index + 1, to: handle, in: db)
                    try bindText(c, at: index + 2, to: handle, in: db)
                    try step(statement, in: db)
                }
            }
        }
    }

    /// Runs `statement` once with the values `bind` binds by parameter index; each text is copied by SQLite
    /// (`SQLITE_TRANSIENT`). For rows of several short texts, where keeping each string in place through nested
    /// closures (``run(_:_:in:)``) cost more in reference counting than the copies (the audit index's rows: a tenth
    /// of an event upload's server time). Parameters bound before (``bindConstant(_:_:at:in:)``) keep their values.
    static func run(_ statement: Statement, in db: Database, binding bind: (Binder) throws -> Void) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        try bind(Binder(handle: handle, db: db))
        try step(statement, in: db)
    }

    /// Binds values to one run of a statement (``run(_:in:binding:)``).
    struct Binder {
        fileprivate let handle: OpaquePointer
        fileprivate let db: Database

        /// Binds a text (copied), or NULL for nil.
        func text(_ value: String?, at index: Int32) throws {
            guard var value else { return try DirectRows.check(sqlite3_bind_null(handle, index), db) }
            try value.withUTF8 { utf8 in
                guard let base = utf8.baseAddress, utf8.count > 0 else {
                    return try DirectRows.check(sqlite3_bind_text(handle, index, "", 0, DirectRows.transient), db)
                }
                let characters = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                let code = sqlite3_bind_text(handle, index, characters, Int32(utf8.count), DirectRows.transient)
                try DirectRows.check(code, db)
            }
        }

        func integer(_ value: Int64, at index: Int32) throws {
            try DirectRows.check(sqlite3_bind_int64(handle, index, value), db)
        }
    }

    /// Steps the bound statement once and resets it; throws GRDB's `DatabaseError` when the step fails.
    private static func step(_ statement: Statement, in db: Database) throws {
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw error(code, statement, db) }
    }

    /// Binds the first argument, then the rest inside it (so every string stays in place until the step is done).
    private static func bind(_ arguments: ArraySlice<Argument>, from index: Int32, to handle: OpaquePointer,
                             in db: Database, then step: () throws -> Void) throws {
        guard let first = arguments.first else { return try step() }
        let rest = arguments.dropFirst()
        switch first {
        case .integer(let value):
            try check(sqlite3_bind_int64(handle, index, value), db)
            try bind(rest, from: index + 1, to: handle, in: db, then: step)
        case .text(var value):
            try value.withUTF8 { utf8 in
                try bindText(utf8, at: index, to: handle, in: db)
                try bind(rest, from: index + 1, to: handle, in: db, then: step)
            }
        case .utf8(let bytes):
            try bytes.withUnsafeBufferPointer { utf8 in
                try bindText(utf8, at: index, to: handle, in: db)
                try bind(rest, from: index + 1, to: handle, in: db, then: step)
            }
        }
    }

    /// Binds UTF-8 bytes as text, in place (`SQLITE_STATIC`, a null destructor: SQLite does not copy them); they
    /// must stay where they are until the step is done.
    private static func bindText(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int32, to handle: OpaquePointer,
                                 in db: Database) throws {
        if let base = utf8.baseAddress, utf8.count > 0 {
            guard utf8.count <= Int(Int32.max) else {
                throw DatabaseError(resultCode: .SQLITE_TOOBIG, message: "a text of \(utf8.count) bytes is too big to store")
            }
            let characters = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            try check(sqlite3_bind_text(handle, index, characters, Int32(utf8.count), nil), db)
        } else {
            try check(sqlite3_bind_text(handle, index, "", 0, transient), db)  // empty text, not NULL
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func check(_ code: Int32, _ db: Database) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }

    private static func error(_ code: Int32, _ statement: Statement, _ db: Database) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                      sql: statement.sql)
    }
}
