import Foundation
import OutpostCore
import PostgresNIO

extension PostgresStorage {
    public func appendLog(_ record: LogRecord) async throws {
        let body = try StorageCoding.encode(record, what: "log record")
        try await execute(
            "append a log record",
            """
            INSERT INTO log (app, time, kind, body)
            VALUES (\(record.appId), \(StorageCoding.seconds(record.time)), \(record.kind), \(body))
            """)
    }

    public func logs(appId: String, kind: String?, since: Date?, until: Date?, limit: Int) async throws -> [LogRecord] {
        // Absent filters bind as NULL; `IS NULL OR` keeps the statement fixed (the planner folds them away at
        // execution with custom plans, which is what the unnamed statements postgres-nio sends get).
        try await bodies(
            "read the log",
            """
            SELECT body FROM (
                SELECT id, time, body FROM log
                WHERE app = \(appId) AND (\(kind)::text IS NULL OR kind = \(kind))
                    AND (\(since.map(StorageCoding.seconds))::float8 IS NULL OR time >= \(since.map(StorageCoding.seconds)))
                    AND (\(until.map(StorageCoding.seconds))::float8 IS NULL OR time <= \(until.map(StorageCoding.seconds)))
                ORDER BY time DESC, id DESC LIMIT \(max(limit, 0))) AS newest
            ORDER BY time, id
            """,
            as: LogRecord.self)
    }

    public func deleteLogs(appId: String, before date: Date) async throws -> Int {
        try await rows("delete old log records", """
            DELETE FROM log WHERE app = \(appId) AND time < \(StorageCoding.seconds(date)) RETURNING 1
            """) { _ in () }.count
    }
}
