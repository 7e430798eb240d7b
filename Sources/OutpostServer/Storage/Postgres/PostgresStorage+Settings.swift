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
}
