import Foundation
import GRDB
import OutpostCore

extension SQLiteStorage {
    public func appendLog(_ record: LogRecord) async throws {
        let body = try StorageCoding.encode(record, what: "log record")
        try await write("append a log record") { db in
            try db.execute(
                sql: "INSERT INTO log (app, time, kind, body) VALUES (?, ?, ?, ?)",
                arguments: [record.appId, StorageCoding.seconds(record.time), record.kind, body])
        }
    }

    public func logs(appId: String, kind: String?, since: Date?, until: Date?, limit: Int) async throws -> [LogRecord] {
        var conditions = ["app = ?"]
        var arguments: StatementArguments = [appId]
        if let kind {
            conditions.append("kind = ?")
            arguments += [kind]
        }
        if let since {
            conditions.append("time >= ?")
            arguments += [StorageCoding.seconds(since)]
        }
        if let until {
            conditions.append("time <= ?")
            arguments += [StorageCoding.seconds(until)]
        }
        arguments += [max(limit, 0)]
        let sql = """
            SELECT body FROM (
                SELECT id, time, body FROM log WHERE \(conditions.joined(separator: " AND "))
                ORDER BY time DESC, id DESC LIMIT ?)
            ORDER BY time, id
            """
        let bodies = try await read("read the log") { [arguments] db in
            try String.fetchAll(db, sql: sql, arguments: arguments)
        }
        return try bodies.map { try StorageCoding.decode(LogRecord.self, from: $0, what: "log record") }
    }

    public func deleteLogs(appId: String, before date: Date) async throws -> Int {
        try await write("delete old log records") { db in
            try db.execute(sql: "DELETE FROM log WHERE app = ? AND time < ?", arguments: [appId, StorageCoding.seconds(date)])
            return db.changesCount
        }
    }
}
