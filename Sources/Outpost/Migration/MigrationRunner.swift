import Foundation
import OutpostCore

/// Runs a schema migration when a Realm opens, in one write transaction: if anything fails, the
/// file is left as it was.
///
/// Classes with a breaking change are rebuilt: their table is set aside, a new table is created and
/// the rowids and unchanged columns are copied (a column whose type changed gets the default value;
/// a column made required gets the default where it was null). Additive changes are applied to the
/// other classes. Then the migration block runs with the old data (the tables set aside) and the new
/// data, primary keys are checked, the old tables dropped and the new schema and version stored.
struct MigrationRunner {
    let realm: RealmInstance
    let types: [ObjectBase.Type]
    let plan: SchemaPlan

    /// The name of the table holding a rebuilt class's old data during the migration.
    static func asideTableName(_ className: String) -> String { "__outpost_migrating_\(className)" }

    func run() throws {
        let savedSchemas = realm.storedSchemas
        let savedSwiftTypes = realm.storedSwiftTypes
        let savedVersion = realm.schemaVersion
        do {
            try realm.withSchemaTransaction { try migrate(oldVersion: savedVersion) }
        } catch {
            realm.storedSchemas = savedSchemas
            realm.storedSwiftTypes = savedSwiftTypes
            realm.schemaVersion = savedVersion
            realm.tablesByName = [:]
            realm.tablesByType = [:]
            realm.invalidateRowCaches()
            throw error
        }
        // Fresh layouts: nothing from the migration's identity maps survives.
        realm.tablesByName = [:]
        realm.tablesByType = [:]
        realm.installTables(types)
        realm.invalidateRowCaches()
    }

    private func migrate(oldVersion: UInt64) throws {
        let connection = realm.connection
        let stored = realm.storedSchemas
        var newSchemas: [String: ObjectSchema] = [:]
        for schema in plan.code { newSchemas[schema.className] = schema }
        let changed = plan.changedClasses.sorted()

        // Rebuild the classes with breaking changes; add what is new to the others.
        var oldTableNames: [String: String] = [:]
        for name in changed {
            let aside = Self.asideTableName(name)
            try dropIndexes(ofTable: name)
            try connection.execute("DROP TABLE IF EXISTS \(SQL.quote(aside))")
            try connection.execute("ALTER TABLE \(SQL.quote(name)) RENAME TO \(SQL.quote(aside))")
            oldTableNames[name] = aside
        }
        for name in changed {
            guard let old = stored[name], let new = newSchemas[name] else { continue }
            try connection.execute(SchemaPlan.createTable(new))
            try copyRows(from: old, to: new, table: oldTableNames[name]!)
        }
        for sql in plan.additiveSQL(excluding: plan.changedClasses) { try connection.execute(sql) }
        connection.clearStatementCache()

        // The block sees the new classes through the instance's tables and the old data through
        // layouts of the stored schema.
        realm.tablesByName = [:]
        realm.tablesByType = [:]
        realm.installTables(types)
        realm.storedSchemas = newSchemas
        var oldTables: [String: TableInfo] = [:]
        for (name, schema) in stored {
            oldTables[name] = TableInfo(schema: schema, objectType: nil, tableName: oldTableNames[name])
        }
        let migration = Migration(
            realm: realm, oldSchema: Schema(stored.values.sorted { $0.className < $1.className }),
            newSchema: Schema(plan.code.sorted { $0.className < $1.className }), oldTables: oldTables)
        realm.isInWriteTransaction = true
        realm.isMigrating = true
        realm.pendingError = nil
        realm.changes = ChangeSet()
        defer {
            realm.isInWriteTransaction = false
            realm.isMigrating = false
            realm.pendingError = nil
            realm.changes = ChangeSet()
        }
        if let block = realm.configuration.migrationBlock {
            block(migration, oldVersion)
        }
        if let error = realm.pendingError { throw error }

        try verifyPrimaryKeys(stored: stored)
        for name in changed {
            guard let new = newSchemas[name] else { continue }
            for index in SchemaPlan.indexes(new) { try connection.execute(index.sql) }
        }
        for name in changed { try connection.execute("DROP TABLE IF EXISTS \(SQL.quote(oldTableNames[name]!))") }
        connection.clearStatementCache()

        var merged = stored.merging(newSchemas) { _, new in new }
        for name in migration.droppedClasses {
            merged[name] = nil
            realm.storedSwiftTypes[name] = nil
        }
        realm.storedSchemas = merged
        try realm.storeSchemas(types: types)
    }

    /// Copies the rowids and the columns whose property kept its name and type.
    private func copyRows(from old: ObjectSchema, to new: ObjectSchema, table: String) throws {
        var columns = ["_rowid"]
        var values = ["_rowid"]
        for property in new.allProperties where property.type != .linkingObjects {
            guard let previous = old.property(column: property.columnName), previous.type == property.type,
                previous.collection == property.collection, previous.objectClassName == property.objectClassName
            else { continue }
            let column = SQL.quote(property.columnName)
            columns.append(column)
            values.append(previous.isOptional && !property.isOptional
                ? Self.requiredValue(of: column, property: property) : column)
        }
        try realm.connection.execute(
            "INSERT INTO \(SQL.quote(new.className)) (\(columns.joined(separator: ", "))) "
                + "SELECT \(values.joined(separator: ", ")) FROM \(SQL.quote(table))")
    }

    /// The SQL expression for an optional column made required: nulls become the default value, and
    /// null elements leave collections.
    private static func requiredValue(of column: String, property: Property) -> String {
        switch property.collection {
        case .none:
            guard let value = SchemaPlan.defaultSQL(property) else { return column }
            return "coalesce(\(column), \(value))"
        case .list, .set:
            return "(SELECT json_group_array(value) FROM json_each(coalesce(\(column), '[]')) WHERE type <> 'null')"
        case .map:
            return "(SELECT json_group_object(key, value) FROM json_each(coalesce(\(column), '{}')) "
                + "WHERE type <> 'null')"
        }
    }

    private func dropIndexes(ofTable table: String) throws {
        let rows = try realm.connection.cached(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL"
        ).rows([.text(table)])
        for row in rows {
            if case .text(let name) = row[0] { try realm.connection.execute("DROP INDEX \(SQL.quote(name))") }
        }
    }

    /// Fails when a class's primary key has duplicate values (Realm checks every primary key that
    /// is new or whose class was rebuilt, since the block may have set them).
    private func verifyPrimaryKeys(stored: [String: ObjectSchema]) throws {
        for schema in plan.code {
            guard let key = schema.primaryKeyProperty else { continue }
            let wasKey = stored[schema.className]?.primaryKeyProperty?.columnName == key.columnName
            guard !wasKey || plan.changedClasses.contains(schema.className) else { continue }
            let column = SQL.quote(key.columnName)
            let duplicate = try realm.connection.scalar(
                "SELECT EXISTS (SELECT 1 FROM \(SQL.quote(schema.className)) GROUP BY \(column) HAVING count(*) > 1)")
            if duplicate == .integer(1) {
                throw Realm.Error(.schemaMismatch,
                    "Primary key property '\(schema.className).\(key.name)' has duplicate values after migration.",
                    fileURL: URL(fileURLWithPath: realm.path))
            }
        }
    }
}
