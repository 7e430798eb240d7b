import Foundation
import OutpostCore

/// The tables a download found empty when it began applying, with the primary keys it has created in them since.
///
/// A bootstrap fills tables that hold nothing yet. An upsert into such a table whose key the download has not
/// created yet cannot meet an existing object, so it skips the primary-key lookup and the general conversions and
/// goes to the local database's insert buffer (multi-row `INSERT`s), as `Realm.add` of a plain object does. Any
/// other upsert takes the general path (`syncUpsert`); if that path could create a row the set does not know, the
/// table leaves the fast path for the rest of the download.
struct SyncNewRows {
    /// Hashes of the keys created in one empty table (a class, so the set grows in place). A hash seen before —
    /// the same key, or rarely another key with the same hash — sends the upsert to the general path, which looks
    /// the key up.
    final class Keys {
        var created: Set<Int>

        init(capacity: Int) {
            created = Set(minimumCapacity: capacity)
        }
    }

    /// How many upserts the download holds (the most keys one table can get).
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// A primary-key column value's hash, computed in one pass (an `ObjectId`'s 12 bytes at once).
    static func hash(_ value: SQLiteValue) -> Int {
        var hasher = Hasher()
        switch value {
        case .null: hasher.combine(0 as UInt8)
        case .integer(let v): hasher.combine(v)
        case .real(let v): hasher.combine(v)
        case .text(let v): hasher.combine(v)
        case .blob(let v): v.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        return hasher.finalize()
    }

    var empty: [ObjectIdentifier: Keys] = [:]
    var notEmpty: Set<ObjectIdentifier> = []
}

extension RealmInstance {
    /// Creates the object through the insert buffer when `table` was empty at the start of the download, has only
    /// plain scalar columns, the download has not created this key yet and the document gives a value of the
    /// right type for every column. Returns false, having written nothing, when the general path must apply the
    /// upsert.
    func syncInsertNew(_ table: TableInfo, primaryKey: Value, fields: OutpostCore.Document,
                       into newRows: inout SyncNewRows) -> Bool {
        let id = ObjectIdentifier(table)
        if newRows.notEmpty.contains(id) { return false }
        let keys: SyncNewRows.Keys
        if let known = newRows.empty[id] {
            keys = known
        } else {
            guard Self.hasOnlyPlainColumns(table), isEmptyTable(table) else {
                newRows.notEmpty.insert(id)
                return false
            }
            keys = SyncNewRows.Keys(capacity: newRows.capacity)
            newRows.empty[id] = keys
        }
        guard let pkIndex = table.primaryKeyProperty,
            let pk = Self.syncColumn(primaryKey, property: table.schema.allProperties[pkIndex])
        else { return leaveFastPath(id, &newRows) }
        // Created earlier in this download: it may exist now, so the general path looks it up.
        let hash = SyncNewRows.hash(pk)
        if keys.created.contains(hash) { return false }
        var values: [SQLiteValue] = []
        values.reserveCapacity(table.propertyOfColumn.count)
        for propertyIndex in table.propertyOfColumn {
            if propertyIndex == pkIndex {
                values.append(pk)
                continue
            }
            let property = table.schema.allProperties[propertyIndex]
            guard let value = fields.fields[property.columnName], let column = Self.syncColumn(value, property: property)
            else { return leaveFastPath(id, &newRows) }
            values.append(column)
        }
        keys.created.insert(hash)
        bufferInsert(table, values: values, makesRow: false)
        return true
    }

    /// The general path may create a row the key set does not know: the table leaves the fast path.
    private func leaveFastPath(_ id: ObjectIdentifier, _ newRows: inout SyncNewRows) -> Bool {
        newRows.empty[id] = nil
        newRows.notEmpty.insert(id)
        return false
    }

    /// Whether the table holds no row (false when it cannot be read).
    func isEmptyTable(_ table: TableInfo) -> Bool {
        guard !table.isMissing, let stmt = try? connection.cached("SELECT 1 FROM \(table.sqlName) LIMIT 1") else {
            return false
        }
        stmt.reset()
        defer { stmt.reset() }
        return (try? stmt.step()) == false
    }

    /// Every column holds a single scalar (no links, `AnyRealmValue`, collections or embedded objects).
    private static func hasOnlyPlainColumns(_ table: TableInfo) -> Bool {
        table.propertyOfColumn.allSatisfy { i in
            let property = table.schema.allProperties[i]
            return property.collection == .none && property.type != .object && property.type != .mixed
                && property.type != .linkingObjects
        }
    }

    /// A protocol value as the column value the general path would store for `property`, or nil when it is not a
    /// scalar of a convertible type (or null for a required property).
    static func syncColumn(_ value: Value, property: Property) -> SQLiteValue? {
        if value.isNull { return property.isOptional ? .null : nil }
        return SQLiteValue(value, type: property.type)
    }
}
