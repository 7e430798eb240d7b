import CSQLite
import Foundation

/// The baseline: the same work with the raw SQLite C API, prepared statements, one transaction.
final class RawSQLite {
    let db: OpaquePointer

    init(path: String) {
        var handle: OpaquePointer?
        sqlite3_open(path, &handle)
        db = handle!
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL")  // as Realm files (docs/storage.md)
        exec("CREATE TABLE person (id BLOB NOT NULL, name TEXT, email TEXT, age INTEGER, born REAL)")
        exec("CREATE UNIQUE INDEX person_id ON person (id)")
    }

    deinit { sqlite3_close(db) }

    func exec(_ sql: String) {
        sqlite3_exec(db, sql, nil, nil, nil)
    }

    func prepare(_ sql: String) -> OpaquePointer {
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        return stmt!
    }

    func insert(_ data: BenchData) {
        exec("BEGIN")
        let stmt = prepare("INSERT INTO person (id, name, email, age, born) VALUES (?, ?, ?, ?, ?)")
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for i in 0..<data.ids.count {
            _ = data.ids[i].withUnsafeBytes { sqlite3_bind_blob(stmt, 1, $0.baseAddress, 12, transient) }
            sqlite3_bind_text(stmt, 2, data.names[i], -1, transient)
            sqlite3_bind_text(stmt, 3, data.emails[i], -1, transient)
            sqlite3_bind_int64(stmt, 4, Int64(data.ages[i]))
            if let d = data.dates[i] { sqlite3_bind_double(stmt, 5, d.timeIntervalSinceReferenceDate) } else { sqlite3_bind_null(stmt, 5) }
            sqlite3_step(stmt)
            sqlite3_reset(stmt)
        }
        sqlite3_finalize(stmt)
        exec("COMMIT")
    }

    /// Count, then read name, email and age of every match.
    func query() -> (count: Int, checksum: Int) {
        exec("BEGIN")
        defer { exec("COMMIT") }
        let countStmt = prepare("SELECT count(*) FROM person WHERE age > 50 AND substr(name, 1, 1) = 'A'")
        sqlite3_step(countStmt)
        let count = Int(sqlite3_column_int64(countStmt, 0))
        sqlite3_finalize(countStmt)
        let stmt = prepare("SELECT name, email, age FROM person WHERE age > 50 AND substr(name, 1, 1) = 'A'")
        var checksum = 0
        while sqlite3_step(stmt) == SQLITE_ROW {
            let name = String(cString: sqlite3_column_text(stmt, 0))
            let email = String(cString: sqlite3_column_text(stmt, 1))
            checksum &+= name.utf8.count &+ email.utf8.count &+ Int(sqlite3_column_int64(stmt, 2))
        }
        sqlite3_finalize(stmt)
        return (count, checksum)
    }

    /// `age = age + 1` object by object: read it, write it back by primary key.
    func updateAll(_ data: BenchData) {
        exec("BEGIN")
        let read = prepare("SELECT age FROM person WHERE id = ?")
        let write = prepare("UPDATE person SET age = ? WHERE id = ?")
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for id in data.ids {
            _ = id.withUnsafeBytes { sqlite3_bind_blob(read, 1, $0.baseAddress, 12, transient) }
            sqlite3_step(read)
            let age = sqlite3_column_int64(read, 0)
            sqlite3_reset(read)
            sqlite3_bind_int64(write, 1, age + 1)
            _ = id.withUnsafeBytes { sqlite3_bind_blob(write, 2, $0.baseAddress, 12, transient) }
            sqlite3_step(write)
            sqlite3_reset(write)
        }
        sqlite3_finalize(read)
        sqlite3_finalize(write)
        exec("COMMIT")
    }
}
