import Foundation
import OutpostCore

/// What a migration block receives: the old data (as stored before the migration, read-only) and
/// the new data (in the new schema, writable), both accessed dynamically by class and property name.
///
/// ```swift
/// let config = Realm.Configuration(schemaVersion: 2, migrationBlock: { migration, oldSchemaVersion in
///     if oldSchemaVersion < 2 {
///         migration.renameProperty(onType: "Person", from: "yearsSinceBirth", to: "age")
///         migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
///             newObject?["fullName"] = "\(oldObject!["firstName"]!) \(oldObject!["lastName"]!)"
///         }
///     }
/// })
/// ```
///
/// Invalid operations (an unknown class or property, a value of the wrong type, a bad rename) are
/// recorded and make opening the Realm throw a `Realm.Error`; the file is then left unchanged.
public final class Migration {
    let realm: RealmInstance
    /// The schema stored in the file before the migration.
    public let oldSchema: Schema
    /// The schema after the migration.
    public let newSchema: Schema
    /// Layouts of the old data by class (the table set aside for rebuilt classes).
    let oldTables: [String: TableInfo]
    /// Classes no longer in the schema whose data `deleteData(forType:)` removed.
    private(set) var droppedClasses: Set<String> = []
    /// Rows `create` made, by class: an unchanged class keeps one table for old and new objects, and enumerating
    /// visits only the old ones (Realm's order: enumerate, `deleteData`, `create`, enumerate again sees nothing).
    private var createdRows: [String: Set<Int64>] = [:]
    /// Properties renamed to a name the new schema does not have (a step of a multi-step rename):
    /// class → name → the old property holding the data.
    private var intermediateNames: [String: [String: String]] = [:]

    init(realm: RealmInstance, oldSchema: Schema, newSchema: Schema, oldTables: [String: TableInfo]) {
        self.realm = realm
        self.oldSchema = oldSchema
        self.newSchema = newSchema
        self.oldTables = oldTables
    }

    /// Calls `block` for every object of `typeName` stored before the migration, with the object as
    /// it was (`oldObject`) and as it is in the new schema (`newObject`, nil when the class is no longer
    /// in the schema). Objects deleted during the migration are skipped; classes new in this schema
    /// have no old objects, so the block is not called.
    public func enumerateObjects(
        ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void
    ) {
        guard let oldTable = oldTables[typeName], !droppedClasses.contains(typeName) else { return }
        let newTable = newSchema[typeName] != nil ? realm.tablesByName[typeName] : nil
        let rowids: [Int64]
        do {
            rowids = try realm.connection.cached("SELECT _rowid FROM \(oldTable.sqlName) ORDER BY _rowid").rows()
                .compactMap { if case .integer(let r) = $0[0] { r } else { nil } }
        } catch {
            realm.fail(Realm.Error(.fail, "Could not read the '\(typeName)' objects to migrate: \(error)"))
            return
        }
        let created = newTable?.sqlName == oldTable.sqlName ? createdRows[typeName] ?? [] : []
        for rowid in rowids where !created.contains(rowid) {
            guard let oldObject = oldObject(oldTable, rowid) else { continue }
            guard let newTable else {
                block(oldObject, nil)
                continue
            }
            guard let values = realm.loadRow(newTable, rowid) else { continue }
            block(oldObject, DynamicObject(row: realm.row(newTable, rowid, values: values), inMigration: true))
        }
    }

    /// Creates an object of `typeName` in the new schema from a dictionary of property values (others
    /// get their defaults), an array of values in property order, or another object.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        guard newSchema[typeName] != nil, let table = realm.tablesByName[typeName] else {
            realm.fail(Realm.Error(.invalidInput, "Object type '\(typeName)' is not managed by the Realm."))
            return DynamicObject(detached: typeName)
        }
        guard let contents = ValueConversion.contents(of: value, for: table, realm: realm),
            let row = realm.insertRow(table, contents: contents, update: .error, object: nil)
        else { return DynamicObject(detached: typeName) }
        createdRows[typeName, default: []].insert(row.rowid)
        return DynamicObject(row: row, inMigration: true)
    }

    /// Deletes an object of the new schema (a `newObject`, or one made with `create`).
    public func delete(_ object: MigrationObject) {
        guard let row = object.newRow, row.realm === realm else {
            realm.fail(Realm.Error(.invalidInput, "Can only delete an object from the Realm it belongs to."))
            return
        }
        realm.deleteRow(row)
    }

    /// Deletes every object of `typeName`. A class no longer in the schema is removed from the file
    /// altogether. Returns whether the file had the class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        if newSchema[typeName] != nil, let table = realm.tablesByName[typeName] {
            let rowids = (try? realm.connection.cached("SELECT _rowid FROM \(table.sqlName)").rows()) ?? []
            for row in rowids {
                guard case .integer(let rowid) = row[0], realm.loadRow(table, rowid) != nil else { continue }
                realm.deleteRow(realm.row(table, rowid))
            }
            return true
        }
        guard oldTables[typeName] != nil, !droppedClasses.contains(typeName) else { return false }
        do {
            try realm.connection.execute("DROP TABLE IF EXISTS \(SQL.quote(typeName))")
            try realm.connection.cached("DELETE FROM __outpost_schema WHERE className = ?").run([.text(typeName)])
        } catch {
            realm.fail(Realm.Error(.fail, "Could not delete the data of '\(typeName)': \(error)"))
            return false
        }
        realm.connection.clearStatementCache()
        droppedClasses.insert(typeName)
        return true
    }

    /// Moves the data of property `oldName` (of the old schema) to property `newName` (of the new
    /// schema), which must have the same type. Renaming to a name the new schema does not have is a
    /// step of a multi-step rename: a later rename from that name continues it.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let oldTable = oldTables[typeName], !droppedClasses.contains(typeName) else {
            return renameFailed("Cannot rename properties for type '\(typeName)' because it does not exist.")
        }
        guard let newClass = newSchema[typeName], let newTable = realm.tablesByName[typeName] else {
            return renameFailed(
                "Cannot rename properties for type '\(typeName)' because it has been removed from the Realm.")
        }
        if newClass[oldName] != nil {
            return renameFailed(
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because the source property still "
                    + "exists.")
        }
        let sourceName = intermediateNames[typeName]?[oldName] ?? oldName
        guard let source = oldTable.schema[sourceName], source.type != .linkingObjects else {
            return renameFailed("Cannot rename property '\(typeName).\(oldName)' because it does not exist.")
        }
        guard let target = newClass[newName] else {
            intermediateNames[typeName, default: [:]][oldName] = nil
            intermediateNames[typeName, default: [:]][newName] = sourceName
            return
        }
        if source.type != target.type || source.collection != target.collection
            || source.objectClassName != target.objectClassName
        {
            return renameFailed(
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it would change from type "
                    + "'\(Self.typeName(source))' to '\(Self.typeName(target))'.")
        }
        if source.isOptional && !target.isOptional {
            return renameFailed(
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it would change from optional "
                    + "to required.")
        }
        let sql = "UPDATE \(newTable.sqlName) SET \(SQL.quote(target.columnName)) = (SELECT old.\(SQL.quote(source.columnName)) "
            + "FROM \(oldTable.sqlName) AS old WHERE old._rowid = \(newTable.sqlName)._rowid) "
            + "WHERE _rowid IN (SELECT _rowid FROM \(oldTable.sqlName))"
        do {
            try realm.connection.execute(sql)
        } catch {
            return renameFailed("Could not rename property '\(typeName).\(oldName)' to '\(newName)': \(error)")
        }
        intermediateNames[typeName]?[oldName] = nil
        realm.invalidateRowCaches()
    }

    private func renameFailed(_ message: String) {
        realm.fail(Realm.Error(.schemaMismatch, message, fileURL: URL(fileURLWithPath: realm.path)))
    }

    /// A property's type as the rename messages write it (without optionality).
    private static func typeName(_ property: Property) -> String {
        var plain = property
        plain.isOptional = false
        return plain.typeDescription
    }

    /// An old object, or nil if the row is gone.
    func oldObject(_ table: TableInfo, _ rowid: Int64) -> DynamicObject? {
        guard let values = realm.loadRow(table, rowid) else { return nil }
        return DynamicObject(migration: self, table: table, rowid: rowid, values: values)
    }

    /// An old object of a class by name (for links read from old objects).
    func oldObject(className: String, rowid: Int64) -> DynamicObject? {
        guard let table = oldTables[className], !droppedClasses.contains(className) else { return nil }
        return oldObject(table, rowid)
    }
}
