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
    /// Property index by name.
    let propertyIndexByName: [String: Int]

    /// A read-only Realm whose file has no table for this class: it reads as empty.
    var isMissing = false
    private var keyPathIndexes: [ObjectIdentifier: Int] = [:]
    /// Identity map: the one live row storage per rowid. Held weakly: rows keep their Realm instance
    /// alive, so a strong map would keep every instance that ever read a row open.
    var rows = RowIdentityMap()
    private var pruneThreshold = 4096

    let selectRowSQL: String
    let insertSQL: String
    let deleteSQL: String
    private var updateSQLs: [String?]

    /// `tableName` overrides the table (a migration reads the old data from a table set aside).
    init(schema: ObjectSchema, objectType: ObjectBase.Type?, tableName: String? = nil) {
        self.className = schema.className
        self.schema = schema
        self.objectType = objectType
        self.sqlName = SQL.quote(tableName ?? schema.className)
        var columnOfProperty: [Int?] = []
        var propertyOfColumn: [Int] = []
        var byName: [String: Int] = [:]
        for (i, p) in schema.properties.enumerated() {
            byName[p.name] = i
            if p.type == .linkingObjects {
                columnOfProperty.append(nil)
            } else {
                columnOfProperty.append(propertyOfColumn.count)
                propertyOfColumn.append(i)
            }
        }
        self.columnOfProperty = columnOfProperty
        self.propertyOfColumn = propertyOfColumn
        self.propertyTypes = schema.properties.map(\.type)
        self.propertyIndexByName = byName
        self.primaryKeyProperty = schema.properties.firstIndex(where: \.isPrimaryKey)
        let columnNames = propertyOfColumn.map { SQL.quote(schema.properties[$0].name) }
        selectRowSQL = "SELECT " + (columnNames.isEmpty ? "NULL" : columnNames.joined(separator: ", "))
            + " FROM \(sqlName) WHERE rowid = ?"
        insertSQL = columnNames.isEmpty
            ? "INSERT INTO \(sqlName) DEFAULT VALUES"
            : "INSERT INTO \(sqlName) (\(columnNames.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: columnNames.count).joined(separator: ", ") + ")"
        deleteSQL = "DELETE FROM \(sqlName) WHERE rowid = ?"
        updateSQLs = Array(repeating: nil, count: propertyOfColumn.count)
    }

    /// The columns in `SELECT` order, quoted, prefixed with a table alias.
    func columnList(alias: String) -> String {
        propertyOfColumn.map { "\(alias).\(SQL.quote(schema.properties[$0].name))" }.joined(separator: ", ")
    }

    func updateSQL(column: Int) -> String {
        if let sql = updateSQLs[column] { return sql }
        let name = SQL.quote(schema.properties[propertyOfColumn[column]].name)
        let sql = "UPDATE \(sqlName) SET \(name) = ? WHERE rowid = ?"
        updateSQLs[column] = sql
        return sql
    }

    @inline(__always)
    func propertyIndex(for keyPath: AnyKeyPath, name: () -> String) -> Int {
        let key = ObjectIdentifier(keyPath)
        if let index = keyPathIndexes[key] { return index }
        let propertyName = name()
        guard let index = propertyIndexByName[propertyName] else {
            fatalError("Property '\(propertyName)' is not part of the schema of '\(className)' in this Realm.")
        }
        keyPathIndexes[key] = index
        return index
    }

    func property(named name: String) -> (index: Int, property: Property)? {
        guard let i = propertyIndexByName[name] else { return nil }
        return (i, schema.properties[i])
    }

    /// Drops the identity-map entries of rows that are gone, when the map has grown.
    func pruneRowsIfNeeded() {
        guard rows.count > pruneThreshold else { return }
        rows.removeReleased()
        pruneThreshold = max(4096, rows.count * 2)
    }
}

/// Row storages by rowid, held weakly.
struct RowIdentityMap {
    private struct Entry {
        weak var row: ManagedRow?
    }

    private var entries: [Int64: Entry] = [:]

    subscript(rowid: Int64) -> ManagedRow? {
        get { entries[rowid]?.row }
        set { entries[rowid] = newValue.map { Entry(row: $0) } }
    }

    /// The rows still alive.
    var values: [ManagedRow] { entries.values.compactMap(\.row) }

    var count: Int { entries.count }

    mutating func removeReleased() {
        entries = entries.filter { $0.value.row != nil }
    }
}

/// SQL text helpers.
enum SQL {
    /// A quoted identifier.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
