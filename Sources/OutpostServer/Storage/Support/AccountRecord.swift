/// A record of one of the account tables — `users`, `sessions`, `api_keys` — as both SQL drivers store it: one row
/// keyed by (`app`, `id`), the columns that lookups use (``AccountTable/columns``), and the whole record as
/// ``StorageCoding`` JSON in `body`.
///
/// Each driver inserts, reads, updates and deletes the three through one generic code path built from the record's
/// ``table`` (`SQLiteStorage+AccountRecords.swift`, `PostgresStorage+AccountRecords.swift`); only the SQL dialect
/// differs between them.
package protocol AccountRecord: Codable, Sendable {
    /// The record's table, its columns and what messages call it.
    static var table: AccountTable { get }
    var appId: String { get }
    var id: String { get }
    /// The record's values of ``AccountTable/columns``, in their order.
    var columnValues: [String] { get }
}

/// The shape of an account table (``AccountRecord``). Its names are spliced into SQL: they are fixed here, never
/// taken from input.
package struct AccountTable: Sendable {
    /// The table's name.
    package let name: String
    /// The columns between `app, id` and `body`, in the table's order: those that lookups use.
    package let columns: [String]
    /// Those of ``columns`` that an update writes besides `body`.
    package let updatedColumns: [String]
    /// One record in messages about its body: `user`.
    package let record: String
    /// One record in the names of operations: `a user` (as in "could not read a user").
    package let one: String
    /// Several records in the names of operations: `users`.
    package let many: String
}

extension AccountRecord {
    /// The record's values of the table's ``AccountTable/updatedColumns``, in the table's order.
    package var updatedColumnValues: [(column: String, value: String)] {
        zip(Self.table.columns, columnValues)
            .filter { column, _ in Self.table.updatedColumns.contains(column) }
            .map { column, value in (column: column, value: value) }
    }
}

extension StoredUser: AccountRecord {
    /// Logins look users up by provider and identity; an update may change either.
    package static let table = AccountTable(
        name: "users", columns: ["provider", "identity"], updatedColumns: ["provider", "identity"],
        record: "user", one: "a user", many: "users")

    package var columnValues: [String] { [provider, identity] }
}

extension StoredSession: AccountRecord {
    /// Sessions are found by their user when the user is deleted; they are never updated.
    package static let table = AccountTable(
        name: "sessions", columns: ["user_id"], updatedColumns: [],
        record: "session", one: "a session", many: "sessions")

    package var columnValues: [String] { [userId] }
}

extension StoredAPIKey: AccountRecord {
    /// Keys are listed by their user; an update replaces the body only, and a key stays with the user it was made for.
    package static let table = AccountTable(
        name: "api_keys", columns: ["user_id"], updatedColumns: [],
        record: "API key", one: "an API key", many: "API keys")

    package var columnValues: [String] { [userId] }
}
