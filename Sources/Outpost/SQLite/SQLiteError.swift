/// A failure reported by SQLite: its result code, message and the SQL that caused it.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var sql: String?

    var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " in \($0)" } ?? "")
    }
}
