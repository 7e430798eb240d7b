import Foundation
import OutpostCore

/// How one class is laid out in its SQLite table, for one Realm instance.
///
/// Every persisted property except `LinkingObjects` has one column, named after the property.
/// Scalars are stored natively, links as the target's rowid, and collections and `AnyRealmValue`
/// as JSON text (docs/storage.md).
final class TableInfo {
    let className: String
    let schema: ObjectSchema
    let objectType: ObjectBase.Type?
    /// The quoted table name.
    let sqlName: String
    /// Column index (in `SELECT` order after the rowid) of each property; nil for computed ones.
    let columnOfProperty: [Int?]
    /// Property index of each column.
    let propertyOfColumn: [Int]
    /// The type of each property, for the read fast path.
    let propertyTypes: [PropertyType]
    let primaryKeyProperty: Int?
    /// The column of the primary key, if the class has one.
    var primaryKeyColumn: Int? { primaryKeyProperty.flatMap { columnOfProperty[$0] } }
    /// Property index by name.
    let propertyIndexByName: [String: Int]
    /// The stored name of each column (`Property.columnName`): its SQL column, and its field in sync documents.
    let columnNames: [String]
    /// The property name of each column (the names change sets and notifications use).
    let propertyNameOfColumn: [String]
    /// Property index by stored name, for the names in sync documents and subscription queries.
    private let propertyIndexByColumnName: [String: Int]
    /// For plain scalar properties (not collections, links, `AnyRealmValue` or the primary key): the
    /// column; the fast path of property writes.
    let scalarColumnOfProperty: [Int?]
    let propertyIsOptional: [Bool]
    /// The class has list, set or map properties (an added object's collections are attached to its row).
    let hasCollections: Bool
    /// Whether a property links to one object (`add` releases the unmanaged object it held).
    let hasLinks: Bool

    /// A read-only Realm whose file has no table for this class: it reads as empty.
    var isMissing = false
    private var keyPathIndexes: [ObjectIdentifier: Int] = [:]
    /// The first key paths seen, searched before `keyPathIndexes` (comparing a few pointers is
    /// cheaper than hashing).
    private var recentKeyPaths: [(key: ObjectIdentifier, index: Int)] = []
    /// Identity map: the one live row storage per rowid. Held weakly: rows keep their Realm instance
    /// alive, so a strong map would keep every instance that ever read a row open.
    var rows = RowIdentityMap()
    private var pruneThreshold = 4096

    let selectRowSQL: String
    let insertSQL: String
    let deleteSQL: String
    private var updateSQLs: [String?]
    /// The prepared INSERT and per-column UPDATE statements, held here so the hot paths skip the
    /// connection's cache lookup (which hashes the SQL text). SQLite re-prepares them if the schema
    /// changes.
    private var insertStatement: SQLiteStatement?
    /// INSERTs with an explicit rowid: one row, and `PendingInserts.batchSize` rows.
    private var insertWithRowidStatement: SQLiteStatement?
    private var batchInsertStatement: SQLiteStatement?
    /// The next rowid buffered inserts use, valid in the write transaction `nextRowidGeneration`
    /// (the instance's `readGeneration`).
    var nextRowid: Int64 = 0
    var nextRowidGeneration = -1
    private var updateStatements: [SQLiteStatement?]
    /// How `add` reads an object of `objectType` straight into column values; nil when a property
    /// needs the general path (links, collections, `AnyRealmValue`, other types) or the class does not
    /// match the schema exactly.
    private(set) lazy var insertPlan: InsertPlan? = InsertPlan(table: self)
    /// What other parts of the library derive from the table's layout, by type (``cached(_:make:)``).
    private var derived: [(type: ObjectIdentifier, value: AnyObject?)] = []
    /// `SELECT rowid … WHERE <column> = ?` and `… IS NULL` by property name (primary-key lookups), built once.
    private var lookupSQLs: [String: (equal: String, isNull: String)] = [:]

    /// The SQL that finds the rowid of the row whose column `property` (a stored name) equals a bound value (or is
    /// null).
    func lookupSQL(_ property: String, isNull: Bool) -> String {
        if let known = lookupSQLs[property] { return isNull ? known.isNull : known.equal }
        let base = "SELECT rowid FROM \(sqlName) WHERE \(SQL.quote(property)) "
        let built = (equal: base + "= ?", isNull: base + "IS NULL")
        lookupSQLs[property] = built
        return isNull ? built.isNull : built.equal
    }

    /// The `Derived` made for this table from its layout, made by `make` on first use and kept (nil too, when `make`
    /// finds the table needs none): how another part of the library writes the table's rows its own way, such as the
    /// upload's creates and the event library's objects. An entry per type that asked, one or two, searched in turn;
    /// confined as the table's other caches are (its instance's thread, or a frozen instance's lock).
    func cached<Derived: AnyObject>(_ type: Derived.Type, make: (TableInfo) -> Derived?) -> Derived? {
        let key = ObjectIdentifier(type)
        for entry in derived where entry.type == key {
            // Only this method stores an entry, under the identifier of the type it made, so the value is a `Derived`.
            return entry.value.map { unsafeDowncast($0, to: Derived.self) }
        }
        let made = make(self)
        let stored: AnyObject? = made
        derived.append((type: key, value: stored))
        return made
    }

    /// `tableName` overrides the table (a migration reads the old data from a table set aside).
    init(schema: ObjectSchema, objectType: ObjectBase.Type?, tableName: String? = nil) {
        self.className = schema.className
        self.schema = schema
        self.objectType = objectType
        self.sqlName = SQL.quote(tableName ?? schema.className)
        var columnOfProperty: [Int?] = []
        var propertyOfColumn: [Int] = []
        var byName: [String: Int] = [:]
        var byColumnName: [String: Int] = [:]
        for (i, p) in schema.allProperties.enumerated() {
            byName[p.name] = i
            if p.type != .linkingObjects { byColumnName[p.columnName] = i }
            if p.type == .linkingObjects {
                columnOfProperty.append(nil)
            } else {
                columnOfProperty.append(propertyOfColumn.count)
                propertyOfColumn.append(i)
            }
        }
        self.columnOfProperty = columnOfProperty
        self.propertyOfColumn = propertyOfColumn
        self.propertyTypes = schema.allProperties.map(\.type)
        self.propertyIndexByName = byName
        self.propertyIndexByColumnName = byColumnName
        self.primaryKeyProperty = schema.allProperties.firstIndex(where: \.isPrimaryKey)
        self.columnNames = propertyOfColumn.map { schema.allProperties[$0].columnName }
        self.propertyNameOfColumn = propertyOfColumn.map { schema.allProperties[$0].name }
        self.propertyIsOptional = schema.allProperties.map(\.isOptional)
        self.hasCollections = schema.allProperties.contains { $0.collection != .none }
        self.hasLinks = schema.allProperties.contains { $0.type == .object && $0.collection == .none }
        self.scalarColumnOfProperty = schema.allProperties.indices.map { i in
            let p = schema.allProperties[i]
            let plain = p.collection == .none && !p.isPrimaryKey
                && p.type != .object && p.type != .mixed && p.type != .linkingObjects
            return plain ? columnOfProperty[i] : nil
        }
        let columnNames = propertyOfColumn.map { SQL.quote(schema.allProperties[$0].columnName) }
        selectRowSQL = "SELECT " + (columnNames.isEmpty ? "NULL" : columnNames.joined(separator: ", "))
            + " FROM \(sqlName) WHERE rowid = ?"
        insertSQL = columnNames.isEmpty
            ? "INSERT INTO \(sqlName) DEFAULT VALUES"
            : "INSERT INTO \(sqlName) (\(columnNames.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: columnNames.count).joined(separator: ", ") + ")"
        deleteSQL = "DELETE FROM \(sqlName) WHERE rowid = ?"
        updateSQLs = Array(repeating: nil, count: propertyOfColumn.count)
        updateStatements = Array(repeating: nil, count: propertyOfColumn.count)
    }

    func insertStatement(_ connection: SQLiteConnection) throws -> SQLiteStatement {
        if let stmt = insertStatement { return stmt }
        let stmt = try connection.cached(insertSQL)
        insertStatement = stmt
        return stmt
    }

    /// `INSERT INTO t (_rowid, columns…) VALUES (…), …` with `rows` rows.
    func insertWithRowidStatement(rows: Int, _ connection: SQLiteConnection) throws -> SQLiteStatement {
        let isBatch = rows > 1
        if let stmt = isBatch ? batchInsertStatement : insertWithRowidStatement { return stmt }
        let names = ["_rowid"] + propertyOfColumn.map { SQL.quote(schema.allProperties[$0].columnName) }
        let tuple = "(" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        let sql = "INSERT INTO \(sqlName) (\(names.joined(separator: ", "))) VALUES "
            + Array(repeating: tuple, count: rows).joined(separator: ", ")
        let stmt = try connection.cached(sql)
        if isBatch { batchInsertStatement = stmt } else { insertWithRowidStatement = stmt }
        return stmt
    }

    func updateStatement(column: Int, _ connection: SQLiteConnection) throws -> SQLiteStatement {
        if let stmt = updateStatements[column] { return stmt }
        let stmt = try connection.cached(updateSQL(column: column))
        updateStatements[column] = stmt
        return stmt
    }

    /// The columns in `SELECT` order, quoted, prefixed with a table alias.
    func columnList(alias: String) -> String {
        propertyOfColumn.map { "\(alias).\(SQL.quote(schema.allProperties[$0].columnName))" }.joined(separator: ", ")
    }

    func updateSQL(column: Int) -> String {
        if let sql = updateSQLs[column] { return sql }
        let name = SQL.quote(schema.allProperties[propertyOfColumn[column]].columnName)
        let sql = "UPDATE \(sqlName) SET \(name) = ? WHERE rowid = ?"
        updateSQLs[column] = sql
        return sql
    }

    @inline(__always)
    func propertyIndex(for keyPath: AnyKeyPath, name: () -> String) -> Int {
        let key = ObjectIdentifier(keyPath)
        for entry in recentKeyPaths where entry.key == key { return entry.index }
        if let index = keyPathIndexes[key] { return index }
        let propertyName = name()
        guard let index = propertyIndexByName[propertyName] else {
            fatalError("Property '\(propertyName)' is not part of the schema of '\(className)' in this Realm.")
        }
        if recentKeyPaths.count < 16 {
            recentKeyPaths.append((key, index))
        } else {
            keyPathIndexes[key] = index
        }
        return index
    }

    /// The property an app names; a stored name also answers, as in Realm, where a query may use either (subscription
    /// queries are kept in stored names).
    func property(named name: String) -> (index: Int, property: Property)? {
        guard let i = propertyIndexByName[name] ?? propertyIndexByColumnName[name] else { return nil }
        return (i, schema.allProperties[i])
    }

    /// The property stored under `columnName` (a field of a sync document).
    func property(column columnName: String) -> (index: Int, property: Property)? {
        guard let i = propertyIndexByColumnName[columnName] else { return nil }
        return (i, schema.allProperties[i])
    }

    /// Drops the identity-map entries of rows that are gone, when the map has grown.
    func pruneRowsIfNeeded() {
        guard rows.count > pruneThreshold else { return }
        rows.removeReleased()
        pruneThreshold = max(4096, rows.count * 2)
    }
}

/// Row storages by rowid, held weakly.
///
/// Rows of objects just added are first listed unretained in `fresh` instead of the map: most added
/// objects are dropped by the caller right away, and then their rows go (clearing their slot in
/// `ManagedRow.deinit`) without ever costing a weak reference and a map entry. `settle()` moves the
/// rows still alive into the map; it runs before every lookup through `RealmInstance.row` and when
/// the list is full, so the list stays short. Nothing here retains a row: rows retain their Realm
/// instance, which owns this map.
struct RowIdentityMap {
    private struct Entry {
        weak var row: ManagedRow?
    }

    private var entries: [Int64: Entry] = [:]
    private var fresh: [Unmanaged<ManagedRow>?] = []
    /// Deleted rows whose rowid was reused by an insert.
    private var displaced: [Entry] = []
    private static let freshLimit = 1024

    subscript(rowid: Int64) -> ManagedRow? {
        get {
            for slot in fresh.reversed() {
                if let row = slot?.takeUnretainedValue(), row.rowid == rowid { return row }
            }
            return entries[rowid]?.row
        }
        set { entries[rowid] = newValue.map { Entry(row: $0) } }
    }

    /// Adds the row of a newly inserted object. A row still alive for the same rowid can only be one
    /// deleted in this transaction: it stays reachable for `cancelWrite` (through `values`) but
    /// lookups now find the new row.
    @inline(__always)
    mutating func insertFresh(_ row: ManagedRow) {
        if !entries.isEmpty, let old = entries.removeValue(forKey: row.rowid)?.row { displaced.append(Entry(row: old)) }
        if fresh.count >= Self.freshLimit { settleFresh() }
        row.freshSlot = fresh.count
        fresh.append(Unmanaged.passUnretained(row))
    }

    /// Called by a fresh row's deinit.
    mutating func releaseFresh(_ row: ManagedRow) {
        let slot = row.freshSlot
        if slot < fresh.count, let listed = fresh[slot], listed.toOpaque() == Unmanaged.passUnretained(row).toOpaque() {
            fresh[slot] = nil
        }
    }

    /// Moves the fresh rows still alive into the map.
    @inline(__always)
    mutating func settle() {
        if !fresh.isEmpty { settleFresh() }
    }

    private mutating func settleFresh() {
        for case let listed? in fresh {
            let row = listed.takeUnretainedValue()
            row.freshSlot = -1
            entries[row.rowid] = Entry(row: row)
        }
        fresh.removeAll(keepingCapacity: true)
    }

    /// The rows still alive.
    var values: [ManagedRow] {
        entries.values.compactMap(\.row) + fresh.compactMap { $0?.takeUnretainedValue() } + displaced.compactMap(\.row)
    }

    var count: Int { entries.count }

    mutating func removeReleased() {
        entries = entries.filter { $0.value.row != nil }
        displaced.removeAll { $0.row == nil }
    }
}

/// How `add` turns an unmanaged object of a table's class into column values: one reader per column,
/// compiled for the property's concrete type. Only for classes whose stored properties are all plain
/// scalars of the common types (`LinkingObjects` have no column), with the Swift types matching the
/// table's schema.
struct InsertPlan {
    let readers: [(UnsafeRawPointer) -> SQLiteValue]

    init?(table: TableInfo) {
        guard let type = table.objectType else { return nil }
        let fields = PropertyReflection.fields(of: type)
        let properties = table.schema.allProperties
        let declared = ObjectSchemaRegistry.shared.schema(for: type).allProperties
        guard fields.count == properties.count, declared.count == properties.count else { return nil }
        var readers: [(UnsafeRawPointer) -> SQLiteValue] = []
        for propertyIndex in table.propertyOfColumn {
            let field = fields[propertyIndex], property = properties[propertyIndex], own = declared[propertyIndex]
            guard let reader = field.readColumn, field.name == property.name, own.name == property.name,
                property.collection == .none, own.collection == .none, own.type == property.type,
                own.isOptional == property.isOptional,
                property.type != .object, property.type != .mixed, property.type != .linkingObjects
            else { return nil }
            readers.append(reader)
        }
        self.readers = readers
    }
}

/// SQL text helpers.
enum SQL {
    /// A quoted identifier.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
