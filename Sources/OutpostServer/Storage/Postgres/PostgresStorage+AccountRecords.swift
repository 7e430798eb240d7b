import PostgresNIO

/// The one code path of the account tables (``AccountRecord``): users, sessions and API keys are inserted, read,
/// updated and deleted by these, each statement built from the record's ``AccountTable``. Every value is bound
/// (`$1`, `$2`, …).
extension PostgresStorage {
    /// Inserts a record; one with the same key throws ``StorageError/Code/duplicate``.
    func insertRecord<R: AccountRecord>(_ record: R) async throws {
        let table = R.table
        let body = try StorageCoding.encode(record, what: table.record)
        let columns = ["app", "id"] + table.columns + ["body"]
        let placeholders = columns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        let values: [String] = [record.appId, record.id] + record.columnValues + [body]
        let query = try Self.boundQuery(
            "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))", values)
        try await execute("insert \(table.one)", query)
    }

    /// The app's record whose columns have these values (a lookup by a unique key), or nil.
    func record<R: AccountRecord>(
        _ type: R.Type, appId: String, where filters: KeyValuePairs<String, String>
    ) async throws -> R? {
        let (condition, values) = Self.accountCondition(appId: appId, filters)
        let query = try Self.boundQuery("SELECT body FROM \(R.table.name) WHERE \(condition)", values)
        return try await bodies("read \(R.table.one)", query, as: R.self).first
    }

    /// The app's records whose columns have these values (every one of the app's when there are none), in id order.
    func records<R: AccountRecord>(
        _ type: R.Type, appId: String, where filters: KeyValuePairs<String, String> = [:]
    ) async throws -> [R] {
        let (condition, values) = Self.accountCondition(appId: appId, filters)
        let query = try Self.boundQuery(
            "SELECT body FROM \(R.table.name) WHERE \(condition) ORDER BY id COLLATE \"C\"", values)
        return try await bodies("list \(R.table.many)", query, as: R.self)
    }

    /// Replaces the stored record of the same app and id (its body and ``AccountTable/updatedColumns``); whether
    /// there was one.
    func updateRecord<R: AccountRecord>(_ record: R) async throws -> Bool {
        let table = R.table
        let body = try StorageCoding.encode(record, what: table.record)
        let updated = record.updatedColumnValues
        let columns = updated.map { $0.column } + ["body"]
        let assignments = columns.enumerated().map { index, column in "\(column) = $\(index + 1)" }
            .joined(separator: ", ")
        let values: [String] = updated.map { $0.value } + [body, record.appId, record.id]
        let query = try Self.boundQuery(
            """
            UPDATE \(table.name) SET \(assignments) WHERE app = $\(columns.count + 1) AND id = $\(columns.count + 2) \
            RETURNING 1
            """, values)
        let returned = try await rows("update \(table.one)", query) { _ in () }
        return !returned.isEmpty
    }

    /// Deletes the app's record with this id; whether there was one.
    func deleteRecord<R: AccountRecord>(_ type: R.Type, appId: String, id: String) async throws -> Bool {
        let query = try Self.boundQuery("DELETE FROM \(R.table.name) WHERE app = $1 AND id = $2 RETURNING 1", [appId, id])
        let deleted = try await rows("delete \(R.table.one)", query) { _ in () }
        return !deleted.isEmpty
    }

    /// `app = $1 AND column = $2 …` and its values.
    private static func accountCondition(
        appId: String, _ filters: KeyValuePairs<String, String>
    ) -> (sql: String, values: [String]) {
        let columns = ["app"] + filters.map { $0.key }
        let sql = columns.enumerated().map { index, column in "\(column) = $\(index + 1)" }.joined(separator: " AND ")
        let values: [String] = [appId] + filters.map { $0.value }
        return (sql, values)
    }

    /// A statement whose `$1`, `$2`, … are `values`, in their order.
    private static func boundQuery(_ sql: String, _ values: [String]) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: values.count)
        for value in values { try binds.append(value) }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
