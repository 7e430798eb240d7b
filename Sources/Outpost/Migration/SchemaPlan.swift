import Foundation
import OutpostCore

/// The difference between the schema stored in a file and the classes' schema: the breaking
/// changes (which need a migration, in Realm's wording) and the SQL for the additive ones.
struct SchemaPlan {
    let stored: [String: ObjectSchema]
    let code: [ObjectSchema]
    private(set) var breakingChanges: [String] = []
    /// Classes with a breaking change.
    private(set) var changedClasses: Set<String> = []

    init(stored: [String: ObjectSchema], code: [ObjectSchema]) {
        self.stored = stored
        self.code = code
        for schema in code {
            guard let old = stored[schema.className] else { continue }
            let before = breakingChanges.count
            compare(old: old, new: schema)
            if breakingChanges.count > before { changedClasses.insert(schema.className) }
        }
    }

    private mutating func compare(old: ObjectSchema, new: ObjectSchema) {
        let cls = new.className
        // Properties are matched by stored name: renaming a Swift property whose stored name stays (through
        // `propertiesMapping()`) changes nothing in the file.
        for oldProperty in old.allProperties where oldProperty.type != .linkingObjects {
            if new.property(column: oldProperty.columnName) == nil {
                breakingChanges.append("Property '\(cls).\(oldProperty.name)' has been removed.")
            }
        }
        for property in new.allProperties where property.type != .linkingObjects {
            guard let oldProperty = old.property(column: property.columnName) else { continue }
            if oldProperty.type != property.type || oldProperty.collection != property.collection
                || oldProperty.objectClassName != property.objectClassName
            {
                breakingChanges.append(
                    "Property '\(cls).\(property.name)' has been changed from '\(oldProperty.typeDescription)' to "
                        + "'\(property.typeDescription)'.")
            } else if oldProperty.isOptional != property.isOptional {
                breakingChanges.append(
                    "Property '\(cls).\(property.name)' has been made \(property.isOptional ? "optional" : "required").")
            }
        }
        let oldPK = old.primaryKeyProperty?.columnName
        let newPK = new.primaryKeyProperty?.columnName
        if oldPK != newPK {
            switch (oldPK, newPK) {
            case (nil, let n?): breakingChanges.append("Primary Key for class '\(cls)' has been added ('\(n)').")
            case (let o?, nil): breakingChanges.append("Primary Key for class '\(cls)' has been removed ('\(o)').")
            case (let o?, let n?):
                breakingChanges.append("Primary Key for class '\(cls)' has changed from '\(o)' to '\(n)'.")
            default: break
            }
        }
        if old.isEmbedded != new.isEmbedded {
            breakingChanges.append("Class '\(cls)' has been changed from \(old.isEmbedded ? "embedded" : "top-level") to "
                + "\(new.isEmbedded ? "embedded" : "top-level").")
        }
    }

    /// CREATE TABLE / ALTER TABLE ADD COLUMN / CREATE INDEX for what is new, except in `excluded` classes
    /// (the ones a migration rebuilds).
    /// `existingIndexes`: index names the file has already; their `CREATE INDEX IF NOT EXISTS` is left out, so that an
    /// open of an unchanged file writes nothing.
    func additiveSQL(excluding excluded: Set<String> = [], existingIndexes: Set<String> = []) -> [String] {
        var out: [String] = []
        for schema in code where !excluded.contains(schema.className) {
            if let old = stored[schema.className] {
                for property in schema.allProperties where property.type != .linkingObjects && old.property(column: property.columnName) == nil {
                    out.append("ALTER TABLE \(SQL.quote(schema.className)) ADD COLUMN "
                        + Self.columnDefinition(property, withDefault: true))
                }
            } else {
                out.append(Self.createTable(schema))
            }
            out += Self.indexes(schema).filter { !existingIndexes.contains($0.name) }.map(\.sql)
        }
        return out
    }

    static func createTable(_ schema: ObjectSchema, name: String? = nil) -> String {
        let columns = schema.allProperties.filter { $0.type != .linkingObjects }
            .map { columnDefinition($0, withDefault: true) }
        return "CREATE TABLE \(SQL.quote(name ?? schema.className)) ("
            + (["_rowid INTEGER PRIMARY KEY"] + columns).joined(separator: ", ") + ")"
    }

    static func indexes(_ schema: ObjectSchema, table: String? = nil) -> [(name: String, sql: String)] {
        let tableName = table ?? schema.className
        var out: [(name: String, sql: String)] = []
        for property in schema.allProperties where property.collection == .none && property.type != .linkingObjects {
            let name = "__idx_\(tableName)_\(property.columnName)"
            let indexName = SQL.quote(name)
            if property.isPrimaryKey {
                out.append((name, "CREATE UNIQUE INDEX IF NOT EXISTS \(indexName) ON \(SQL.quote(tableName)) (\(SQL.quote(property.columnName)))"))
            } else if property.isIndexed || property.type == .object {
                out.append((name, "CREATE INDEX IF NOT EXISTS \(indexName) ON \(SQL.quote(tableName)) (\(SQL.quote(property.columnName)))"))
            }
        }
        return out
    }

    static func columnDefinition(_ property: Property, withDefault: Bool) -> String {
        var def = SQL.quote(property.columnName) + " " + sqlType(property)
        if withDefault, let value = defaultSQL(property) { def += " DEFAULT \(value)" }
        return def
    }

    static func sqlType(_ property: Property) -> String {
        if property.collection != .none { return "TEXT" }
        switch property.type {
        case .bool, .int, .object: return "INTEGER"
        case .float, .double, .date: return "REAL"
        case .string, .mixed: return "TEXT"
        case .data, .objectId, .uuid: return "BLOB"
        case .decimal128: return "TEXT COLLATE \(Decimal128Collation.name)"
        case .linkingObjects: return ""
        }
    }

    /// The value existing rows get for a new property (Realm's defaults).
    static func defaultSQL(_ property: Property) -> String? {
        switch property.collection {
        case .list, .set: return "'[]'"
        case .map: return "'{}'"
        case .none: break
        }
        if property.isOptional || property.type == .object || property.type == .mixed { return nil }
        switch property.type {
        case .bool, .int: return "0"
        case .float, .double: return "0.0"
        case .date: return "\(Date(timeIntervalSince1970: 0).timeIntervalSinceReferenceDate)"
        case .string: return "''"
        case .data: return "x''"
        case .objectId: return "x'000000000000000000000000'"
        case .uuid: return "x'00000000000000000000000000000000'"
        case .decimal128: return "'0'"
        default: return nil
        }
    }
}
