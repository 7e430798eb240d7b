import Foundation
import OutpostCore

extension RealmInstance {
    /// Runs `body` holding the frozen instance's lock; live instances (confined to one thread, queue
    /// or actor) run it directly, so the live path takes no lock.
    @inline(__always)
    func synchronized<T>(_ body: () throws -> T) rethrows -> T {
        guard let lock = frozenLock else { return try body() }
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Traps when a frozen instance was invalidated (its pinned version released).
    @inline(__always)
    func verifyReadable() {
        if isFrozen && isInvalidated {
            fatalError("Cannot read from a frozen Realm which has been invalidated.")
        }
    }

    /// A frozen instance pinned at exactly the version this instance is reading (inside a write
    /// transaction: the version the write started from). Reused while this instance stays there.
    ///
    /// The frozen instance has its own connection with a read transaction kept open. In WAL mode a new
    /// read transaction sees the latest commit, which is this instance's version unless another
    /// instance or process committed since this one last refreshed. That is detected by comparing the
    /// history version both connections see; when they differ (and this SQLite build has no
    /// `sqlite3_snapshot_open`), the frozen instance gets a private in-memory copy of this
    /// instance's version made with SQLite's backup API instead (cost: the size of the file).
    func frozenCopy() throws -> RealmInstance {
        verifyAccess()
        if isFrozen { return self }
        if let cached = frozenCopyCache, frozenGeneration == readGeneration { return cached }
        let version = try Self.historyVersion(of: connection)
        var frozenConnection = try SQLiteConnection(path: path, readOnly: configuration.readOnly)
        try frozenConnection.execute("BEGIN DEFERRED")
        if try Self.historyVersion(of: frozenConnection) != version {
            // Another commit happened since this instance's read began: copy its version instead.
            try? frozenConnection.execute("ROLLBACK")
            frozenConnection = try SQLiteConnection(path: ":memory:")
            try connection.backup(into: frozenConnection)
            try frozenConnection.execute("BEGIN DEFERRED")
            _ = try Self.historyVersion(of: frozenConnection)
        }
        let frozen = RealmInstance(configuration: configuration, path: path, connection: frozenConnection,
                                   confinement: .none, isFrozen: true)
        frozen.readTransactionOpen = true
        frozen.historyVersion = version
        frozen.schemaVersion = schemaVersion
        frozen.storedSchemas = storedSchemas
        frozen.storedSwiftTypes = storedSwiftTypes
        frozen.autorefresh = false
        let existing = Set(try frozenConnection.cached("SELECT name FROM sqlite_master WHERE type = 'table'").rows()
            .compactMap { row -> String? in if case .text(let t) = row[0] { t } else { nil } })
        for table in tablesByName.values {
            let copy = TableInfo(schema: table.schema, objectType: table.objectType)
            // A table created in the current write transaction is not in the frozen version.
            copy.isMissing = table.isMissing || !existing.contains(table.className)
            frozen.tablesByName[table.className] = copy
            if let type = table.objectType { frozen.tablesByType[ObjectIdentifier(type)] = copy }
        }
        RealmRegistry.shared.register(frozen, scheduler: nil)
        frozenCopyCache = frozen
        frozenGeneration = readGeneration
        return frozen
    }

    static func historyVersion(of connection: SQLiteConnection) throws -> Int64 {
        if case .integer(let v) = try connection.scalar("SELECT coalesce(max(version), 0) FROM __outpost_history") {
            return v
        }
        return 0
    }

    /// The row for `rowid` in this instance, or nil if the object does not exist at this version.
    /// With a primary key, `primaryKey` must match too (SQLite may reuse the rowid of a deleted row).
    func resolveRow(className: String, rowid: Int64, primaryKey: SQLiteValue?) -> ManagedRow? {
        synchronized {
            verifyAccess()
            guard let table = table(named: className), !table.isMissing else { return nil }
            guard let values = loadRow(table, rowid) else { return nil }
            if let primaryKey, let pk = table.primaryKeyProperty, let column = table.columnOfProperty[pk],
                values[column] != primaryKey
            {
                return nil
            }
            return row(table, rowid, values: values)
        }
    }
}

extension ManagedRow {
    /// The primary key column value, used to tell a row from a later one that reuses its rowid.
    var primaryKeyValue: SQLiteValue? {
        realm.synchronized {
            guard let pk = table.primaryKeyProperty, let column = table.columnOfProperty[pk] else { return nil }
            ensureLoaded()
            return values[column]
        }
    }

    /// This row in `target` (another instance of the same file), or nil if it does not exist there.
    func resolve(in target: RealmInstance) -> ManagedRow? {
        target.resolveRow(className: table.className, rowid: rowid, primaryKey: primaryKeyValue)
    }
}
