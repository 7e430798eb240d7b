import GRDB

/// The one code path of the account tables (``AccountRecord``): users, sessions and API keys are inserted, read,
/// updated and deleted by these, each statement built from the record's ``AccountTable``. Every value is bound.
extension SQLiteStorage {
    /// Inserts a record; one with the same key throws ``StorageError/Code/duplicate``.
    func insertRecord<R: AccountRecord>(_ record: R) async throws {
        let table = R.table
        let body = try StorageCoding.encode(record, what: table.record)
        let columns = ["app", "id"] + table.columns + ["body"]
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let sql = "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        let values: [String] = [record.appId, record.id] + record.columnValues + [body]
        let arguments = StatementArguments(values)
        try await write("insert \(table.one)") { db in
            try db.execute(sql: sql, arguments: arguments)
        }
    }

    /// The app's record whose columns have these values (a lookup by a unique key), or nil.
    func record<R: AccountRecord>(
        _ type: R.Type, appId: String, where filters: KeyValuePairs<String, String>
    ) async throws -> R? {
        let (condition, arguments) = Self.accountCondition(appId: appId, filters)
        let sql = "SELECT body FROM \(R.table.name) WHERE \(condition)"
        let body = try await read("read \(R.table.one)") { db in
            try String.fetchOne(db, sql: sql, arguments: arguments)
        }
        return try body.map { try StorageCoding.decode(R.self, from: $0, what: R.table.record) }
    }

    /// The app's records whose columns have these values (every one of the app's when there are none), in id order.
    func records<R: AccountRecord>(
        _ type: R.Type, appId: String, where filters: KeyValuePairs<String, String> = [:]
    ) async throws -> [R] {
        let (condition, arguments) = Self.accountCondition(appId: appId, filters)
        let sql = "SELECT body FROM \(R.table.name) WHERE \(condition) ORDER BY id"
        let bodies = try await read("list \(R.table.many)") { db in
            try String.fetchAll(db, sql: sql, arguments: arguments)
        }
        return try bodies.map { try StorageCoding.decode(R.self, from: $0, what: R.table.record) }
    }

    /// Replaces the stored record of the same app and id (its body and ``AccountTable/updatedColumns``); whether
    /// there was one.
    func updateRecord<R: AccountRecord>(_ record: R) async throws -> Bool {
        let table = R.table
        let body = try StorageCoding.encode(record, what: table.record)
        let updated = record.updatedColumnValues
        let assignments = (updated.map { $0.column } + ["body"]).map { "\($0) = ?" }.joined(separator: ", ")
        let sql = "UPDATE \(table.name) SET \(assignments) WHERE app = ? AND id = ?"
        let values: [String] = updated.map { $0.value } + [body, record.appId, record.id]
        let arguments = StatementArguments(values)
        return try await write("update \(table.one)") { db in
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount > 0
        }
    }

    /// Deletes the app's record with this id; whether there was one.
    func deleteRecord<R: AccountRecord>(_ type: R.Type, appId: String, id: String) async throws -> Bool {
        let sql = "DELETE FROM \(R.table.name) WHERE app = ? AND id = ?"
        return try await write("delete \(R.table.one)") { db in
            try db.execute(sql: sql, arguments: [appId, id])
            return db.changesCount > 0
        }
    }

    /// `app = ? AND column = ? …` and its arguments.
    private static func accountCondition(
        appId: String, _ filters: KeyValuePairs<String, String>
    ) -> (sql: String, arguments: StatementArguments) {
        let sql = (["app"] + filters.map { $0.key }).map { "\($0) = ?" }.joined(separator: " AND ")
        let values: [String] = [appId] + filters.map { $0.value }
        return (sql, StatementArguments(values))
    }
}
