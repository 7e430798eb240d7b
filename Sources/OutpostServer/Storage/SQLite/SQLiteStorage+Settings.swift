import Foundation
import GRDB
import OutpostCore

extension SQLiteStorage {
    public func setting(appId: String, key: String) async throws -> Value? {
        let text = try await read("read a setting") { db in
            try String.fetchOne(db, sql: "SELECT value FROM settings WHERE app = ? AND key = ?", arguments: [appId, key])
        }
        guard let text else { return nil }
        return try StorageCoding.decodeValue(text, what: "setting")
    }

    public func updateSetting(
        appId: String, key: String, _ update: @escaping @Sendable (Value?) throws -> Value?
    ) async throws -> Value? {
        // BEGIN IMMEDIATE: the read and the write hold SQLite's write lock together, which other processes on the
        // file wait for as well.
        try await run("update a setting") {
            try await writer.writeWithoutTransaction { db in
                var result: Value?
                try db.inTransaction(.immediate) {
                    let text = try String.fetchOne(
                        db, sql: "SELECT value FROM settings WHERE app = ? AND key = ?", arguments: [appId, key])
                    let current = try text.map { try StorageCoding.decodeValue($0, what: "setting") }
                    result = current
                    guard let new = try update(current) else { return .commit }
                    try db.execute(
                        sql: """
                            INSERT INTO settings (app, key, value) VALUES (?, ?, ?)
                            ON CONFLICT (app, key) DO UPDATE SET value = excluded.value
                            """,
                        arguments: [appId, key, new.extendedJSON.text])
                    result = new
                    return .commit
                }
                return result
            }
        }
    }

    public func setSetting(appId: String, key: String, value: Value) async throws {
        let text = value.extendedJSON.text
        try await write("store a setting") { db in
            try db.execute(
                sql: """
                    INSERT INTO settings (app, key, value) VALUES (?, ?, ?)
                    ON CONFLICT (app, key) DO UPDATE SET value = excluded.value
                    """,
                arguments: [appId, key, text])
        }
    }
}
