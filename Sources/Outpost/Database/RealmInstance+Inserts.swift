import Foundation
import OutpostCore

/// Rows added in the current write transaction and not written to SQLite yet.
///
/// `add` of an object whose properties are all plain scalars (`InsertPlan`) assigns the rowid at once
/// (one more than the table's largest, counted up from there) and keeps the column values here. They
/// are written as multi-row INSERTs of `batchSize` rows (far fewer statement executions than one per
/// object), and whatever is left before any other statement runs on the connection
/// (`SQLiteConnection.willRunStatement`), before an UPDATE, at commit and before an error is recorded,
/// so nothing can observe the delay: queries, reads, notifications and errors (a duplicate primary
/// key, with Realm's message) behave as if every row had been inserted by its `add`.
struct PendingInserts {
    static let batchSize = 64

    /// The table of the buffered rows (one table at a time); nil when there are none.
    var table: TableInfo?
    var rowids: [Int64] = []
    var values: [[SQLiteValue]] = []
}

extension RealmInstance {
    /// `add` of an object whose properties are all plain scalars: the values go from the object's
    /// wrappers to column values (no intermediate boxes) and into the insert buffer.
    func insertPlainObject(_ object: ObjectBase, table: TableInfo, plan: InsertPlan) -> ManagedRow? {
        let values: [SQLiteValue] = withExtendedLifetime(object) {
            let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            return plan.readers.map { $0(base) }
        }
        guard let row = bufferInsert(table, values: values) else { return nil }
        object._row = row
        return row
    }

    /// Inserts a row of plain column values (in the table's column order) through the insert buffer, or at once
    /// when no rowid can be reserved, and records it as inserted. Returns its row storage, or nil after recording
    /// the error (or when `makesRow` is false: a download's new rows have no object to back, and a later read
    /// loads them).
    @discardableResult
    func bufferInsert(_ table: TableInfo, values: [SQLiteValue], makesRow: Bool = true) -> ManagedRow? {
        if pendingInserts.table != nil && pendingInserts.table !== table { flushPendingInserts() }
        let rowid: Int64
        if !isMigrating, let reserved = reserveRowid(table) {
            rowid = reserved
            if pendingInserts.table == nil {
                pendingInserts.table = table
                pendingInserts.rowids.reserveCapacity(PendingInserts.batchSize)
                pendingInserts.values.reserveCapacity(PendingInserts.batchSize)
                connection.willRunStatement = flushPendingInsertsHook
            }
            pendingInserts.rowids.append(rowid)
            pendingInserts.values.append(values)
        } else {
            flushPendingInserts()
            guard let inserted = insertNow(table, rowid: nil, values: values) else { return nil }
            rowid = inserted
        }
        changes.insert(table.className, rowid)
        if !commitObservers.isEmpty {
            for observer in commitObservers { observer.rowDidInsert(table, rowid: rowid, values: values) }
        }
        writeCounter &+= 1
        var row: ManagedRow?
        if makesRow {
            row = ManagedRow(realm: self, table: table, rowid: rowid, values: values)
            table.rows.insertFresh(row!)
        }
        if pendingInserts.rowids.count >= PendingInserts.batchSize { flushPendingInserts() }
        return row
    }

    /// The rowid for the next buffered insert into `table`, or nil when the rowids are exhausted (then
    /// SQLite picks one).
    private func reserveRowid(_ table: TableInfo) -> Int64? {
        if table.nextRowidGeneration != readGeneration {
            guard let largest = try? connection.scalar("SELECT max(_rowid) FROM \(table.sqlName)") else { return nil }
            switch largest {
            case .null: table.nextRowid = 1
            case .integer(let max): table.nextRowid = max &+ 1
            default: return nil
            }
            table.nextRowidGeneration = readGeneration
        }
        guard table.nextRowid > 0 && table.nextRowid < Int64.max else { return nil }
        defer { table.nextRowid += 1 }
        return table.nextRowid
    }

    /// Keeps the buffered inserts' rowids above a rowid SQLite chose.
    func noteInsertedRowid(_ rowid: Int64, in table: TableInfo) {
        if table.nextRowidGeneration == readGeneration && rowid >= table.nextRowid && rowid < Int64.max {
            table.nextRowid = rowid + 1
        }
    }

    /// Writes the buffered rows.
    func flushPendingInserts() {
        guard let table = pendingInserts.table else { return }
        pendingInserts.table = nil
        connection.willRunStatement = nil
        defer {
            pendingInserts.rowids.removeAll(keepingCapacity: true)
            pendingInserts.values.removeAll(keepingCapacity: true)
        }
        let count = pendingInserts.rowids.count
        let batch = PendingInserts.batchSize
        var start = 0
        if count >= batch, let stmt = try? table.insertWithRowidStatement(rows: batch, connection) {
            let width = Int32(table.propertyOfColumn.count + 1)
            while start + batch <= count {
                var parameter: Int32 = 1
                for i in start..<(start + batch) {
                    stmt.bindInt(pendingInserts.rowids[i], at: parameter)
                    let values = pendingInserts.values[i]
                    for c in values.indices { stmt.bind(values[c], at: parameter + 1 + Int32(c)) }
                    parameter += width
                }
                do {
                    _ = try stmt.step()
                    stmt.reset()
                } catch {
                    // The statement inserted nothing: insert row by row to report the first failure.
                    stmt.reset()
                    for i in start..<(start + batch) {
                        _ = insertNow(table, rowid: pendingInserts.rowids[i], values: pendingInserts.values[i])
                    }
                }
                start += batch
            }
        }
        for i in start..<count {
            _ = insertNow(table, rowid: pendingInserts.rowids[i], values: pendingInserts.values[i])
        }
    }

    /// Drops the buffered rows (the transaction is rolled back).
    func discardPendingInserts() {
        pendingInserts.table = nil
        connection.willRunStatement = nil
        pendingInserts.rowids.removeAll(keepingCapacity: true)
        pendingInserts.values.removeAll(keepingCapacity: true)
    }

    /// Inserts one row now, with `rowid` or one SQLite picks. Returns the rowid, or nil after recording
    /// the error (a duplicate primary key in Realm's words).
    func insertNow(_ table: TableInfo, rowid: Int64?, values: [SQLiteValue]) -> Int64? {
        do {
            let stmt = rowid == nil
                ? try table.insertStatement(connection) : try table.insertWithRowidStatement(rows: 1, connection)
            var parameter: Int32 = 1
            if let rowid {
                stmt.bindInt(rowid, at: 1)
                parameter = 2
            }
            for i in values.indices { stmt.bind(values[i], at: parameter + Int32(i)) }
            defer { stmt.reset() }
            _ = try stmt.step()
            let inserted = connection.lastInsertRowid
            noteInsertedRowid(inserted, in: table)
            return inserted
        } catch let error as SQLiteError where error.code == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ {
            let pk = table.primaryKeyProperty.flatMap { i -> _StoredValue? in
                table.columnOfProperty[i].map { ValueCoding.scalar(values[$0], type: table.propertyTypes[i]) }
            } ?? .null
            fail(Realm.Error(.invalidInput,
                "Attempting to create an object of type '\(table.className)' with an existing primary key value "
                    + "\(Self.describePrimaryKey(pk))."))
            return nil
        } catch {
            fail(Realm.Error(.fail, "Could not insert a '\(table.className)' object: \(error)"))
            return nil
        }
    }
}
