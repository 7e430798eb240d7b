import Foundation
import OutpostCore

/// Objects as protocol documents (uploads) and protocol documents applied to objects (downloads).
extension RealmInstance {
    // MARK: Rows → documents

    /// Every persisted property of a row as a document (embedded objects inline, links as class + primary key).
    func syncDocument(_ table: TableInfo, rowid: Int64) -> OutpostCore.Document? {
        guard let values = loadRow(table, rowid) else { return nil }
        let row = self.row(table, rowid, values: values)
        row.ensureLoaded()
        var fields: [String: Value] = [:]
        for (i, property) in table.schema.allProperties.enumerated() where table.columnOfProperty[i] != nil {
            fields[property.columnName] = syncFieldValue(table, row: row, propertyIndex: i)
        }
        return OutpostCore.Document(fields)
    }

    /// One property of a row as a protocol value.
    func syncFieldValue(_ table: TableInfo, row: ManagedRow, propertyIndex: Int) -> Value {
        guard let column = table.columnOfProperty[propertyIndex] else { return .null }
        let property = table.schema.allProperties[propertyIndex]
        let raw = row.values[column]
        switch property.collection {
        case .none: return syncValue(decodeColumn(raw, property: property))
        case .list, .set: return .array(decodeCollection(raw, property: property).map(syncValue))
        case .map:
            var out: [String: Value] = [:]
            for (key, value) in decodeMap(raw, property: property) { out[key] = syncValue(value) }
            return .document(OutpostCore.Document(out))
        }
    }

    /// A stored value as a protocol value: embedded objects as documents, other objects as links.
    func syncValue(_ stored: _StoredValue) -> Value {
        stored.value { object in
            guard let row = object._row else { return .null }
            let table = row.table
            if table.schema.isEmbedded {
                return syncDocument(table, rowid: row.rowid).map { .document($0) } ?? .null
            }
            return .link(className: table.className, primaryKey: syncPrimaryKey(row))
        }
    }

    /// The primary key of a row (`_id`).
    func syncPrimaryKey(_ row: ManagedRow) -> Value {
        row.ensureLoaded()
        guard let pk = row.table.primaryKeyProperty, let column = row.table.columnOfProperty[pk] else { return .null }
        return row.values[column].value(type: row.table.schema.allProperties[pk].type)
    }

    /// The rowid of the object of `table` with this primary key.
    func syncRowid(_ table: TableInfo, primaryKey: Value) -> Int64? {
        guard let pkIndex = table.primaryKeyProperty else { return nil }
        let property = table.schema.allProperties[pkIndex]
        let stored = _StoredValue(primaryKey)
        guard let converted = stored.isNull ? stored : Self.convert(stored, to: property.type) else { return nil }
        return existingRow(table, primaryKey: ValueCoding.column(converted), property: property)
    }

    // MARK: Documents → rows

    /// A Swift value for `create(_:value:)`-style contents: links resolved to this Realm's objects (nil when the
    /// target is not here), embedded documents and maps as dictionaries (an embedded object's fields renamed from
    /// their stored names to its properties').
    func syncSwiftValue(_ value: Value, property: Property) -> Any {
        switch value {
        case .link(let className, let pk):
            guard let target = table(named: className), let rowid = syncRowid(target, primaryKey: pk) else {
                return NSNull()
            }
            return object(target, rowid)
        case .array(let items):
            return items.map { syncSwiftValue($0, property: property) }
        case .document(let d):
            var out: [String: Any] = [:]
            let target = property.type == .object ? table(named: property.objectClassName ?? "") : nil
            for (key, item) in d.fields {
                if let target, let (_, field) = target.property(column: key) {
                    out[field.name] = syncSwiftValue(item, property: field)
                } else if target == nil {
                    out[key] = syncSwiftValue(item, property: property)
                }
            }
            return out
        case .int(let v) where property.type == .int:
            return v
        default:
            return value.swiftValue
        }
    }

    /// Creates the object or sets the given fields (skipping `skip`), as a download does. Errors are logged by the
    /// caller through `pendingError`.
    ///
    /// - Parameter localValues: pending local values, written instead of the downloaded ones when the object is
    ///   created (its kept fields have no local value left to keep).
    func syncUpsert(_ table: TableInfo, primaryKey: Value, fields: OutpostCore.Document, skip: Set<String>,
                    localValues: [String: Value] = [:]) {
        let schema = table.schema
        if let rowid = syncRowid(table, primaryKey: primaryKey) {
            let row = self.row(table, rowid)
            for (name, value) in fields.fields where !skip.contains(name) {
                guard let (i, _) = table.property(column: name), i != table.primaryKeyProperty,
                    table.columnOfProperty[i] != nil
                else { continue }
                let property = schema.allProperties[i]
                guard let content = ValueConversion.content(
                    syncSwiftValue(value, property: property), property: property, className: schema.className,
                    realm: self)
                else { continue }
                // An unchanged value (typically the client's own change coming back) is not written again, so it
                // does not notify.
                if property.type != .object && property.type != .mixed, let column = table.columnOfProperty[i] {
                    row.ensureLoaded()
                    if let encoded = encode(content, property: property, owner: schema.className), encoded == row.values[column] {
                        continue
                    }
                }
                setProperty(row, i, content)
            }
            return
        }
        var dictionary: [String: Any] = [:]
        for (name, value) in fields.fields.merging(localValues, uniquingKeysWith: { _, local in local }) {
            guard let (i, property) = table.property(column: name) else { continue }
            dictionary[property.name] = syncSwiftValue(value, property: schema.allProperties[i])
        }
        if let pk = table.primaryKeyProperty { dictionary[schema.allProperties[pk].name] = primaryKey.swiftValue }
        guard let contents = ValueConversion.contents(of: dictionary, for: table, realm: self) else { return }
        _ = insertRow(table, contents: contents, update: .error, object: nil)  // a failure is recorded for the commit
    }

    /// Deletes the object with this primary key, if it is here.
    func syncErase(_ table: TableInfo, primaryKey: Value) {
        guard let rowid = syncRowid(table, primaryKey: primaryKey) else { return }
        deleteRow(row(table, rowid))
    }
}
