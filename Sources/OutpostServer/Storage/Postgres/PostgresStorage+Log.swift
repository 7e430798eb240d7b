import Foundation
import OutpostCore
import PostgresNIO

extension PostgresStorage {
    public func setting(appId: String, key: String) async throws -> Value? {
        let texts = try await rows(
            "read a setting", "SELECT value FROM settings WHERE app = \(appId) AND key = \(key)"
        ) { try $0.decode(String.self) }
        guard let text = texts.first else { return nil }
        return try StorageCoding.decodeValue(text, what: "setting")
    }

    public func updateSetting(
        appId: String, key: String, _ update: @escaping @Sendable (Value?) throws -> Value?
    ) async throws -> Value? {
        // A transaction-level advisory lock per setting: other server processes on the database wait for it too
        // (a row lock cannot cover a setting that does not exist yet).
        try await run("update a setting") {
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let lock = lockKey(appId: appId) + ":setting:" + key
                    _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lock), 0))", logger: logger)
                        .collect()
                    let texts = try await connection.query(
                        "SELECT value FROM settings WHERE app = \(appId) AND key = \(key)", logger: logger
                    ).collect().map { try $0.decode(String.self) }
                    let current = try texts.first.map { try StorageCoding.decodeValue($0, what: "setting") }
                    var result = current
                    if let new = try update(current) {
                        _ = try await connection.query(
                            """
                            INSERT INTO settings (app, key, value) VALUES (\(appId), \(key), \(new.extendedJSON.text))
                            ON CONFLICT (app, key) DO UPDATE SET value = EXCLUDED.value
                            """, logger: logger
                        ).collect()
                        result = new
                    }
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    public func setSetting(appId: String, key: String, value: Value) async throws {
        try await execute(
            "store a setting",
            """
            INSERT INTO settings (app, key, value) VALUES (\(appId), \(key), \(value.extendedJSON.text))
            ON CONFLICT (app, key) DO UPDATE SET value = EXCLUDED.value
            """)
    }

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
