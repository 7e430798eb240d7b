import Foundation
import OutpostCore

extension RealmInstance {
    /// The column values of a row, or nil if it does not exist.
    func loadRow(_ table: TableInfo, _ rowid: Int64) -> [SQLiteValue]? {
        if table.isMissing { return nil }
        do {
            let stmt = try connection.cached(table.selectRowSQL)
            stmt.reset()
            stmt.bindInt(rowid, at: 1)
            defer { stmt.reset() }
            guard try stmt.step() else { return nil }
            let n = Int32(table.propertyOfColumn.count)
            var values: [SQLiteValue] = []
            values.reserveCapacity(Int(n))
            for i in 0..<n { values.append(stmt.value(at: i)) }
            return values
        } catch {
            fatalError("Outpost could not read '\(table.className)' row \(rowid): \(error)")
        }
    }

    /// The column values of many rows, read 256 per statement; `body` gets each existing row's rowid and values,
    /// page by page in rowid order (rows that do not exist are left out). Nothing is read from or stored in the
    /// rows' shared storage.
    func loadRows(_ table: TableInfo, _ rowids: some Collection<Int64>, _ body: (Int64, [SQLiteValue]) -> Void) throws {
        guard !table.isMissing, !rowids.isEmpty else { return }
        let columns = table.propertyOfColumn.isEmpty ? "NULL" : table.columnList(alias: "t")
        let n = Int32(table.propertyOfColumn.count)
        var page: [Int64] = []
        page.reserveCapacity(min(rowids.count, 256))
        func flush() throws {
            let placeholders = page.count == 256 ? Self.page256 : Array(repeating: "?", count: page.count).joined(separator: ",")
            let stmt = try connection.cached("SELECT t.rowid, \(columns) FROM \(table.sqlName) t WHERE t.rowid IN (\(placeholders))")
            stmt.reset()
            defer { stmt.reset() }
            for (i, rowid) in page.enumerated() { stmt.bindInt(rowid, at: Int32(i + 1)) }
            while try stmt.step() {
                var values: [SQLiteValue] = []
                values.reserveCapacity(Int(n))
                for c in 0..<n { values.append(stmt.value(at: c + 1)) }
                body(stmt.int64(at: 0), values)
            }
            page.removeAll(keepingCapacity: true)
        }
        for rowid in rowids {
            page.append(rowid)
            if page.count == 256 { try flush() }
        }
        if !page.isEmpty { try flush() }
    }

    static let page256 = Array(repeating: "?", count: 256).joined(separator: ",")

    /// The shared row storage for `rowid`, with `values` when they were just read.
    func row(_ table: TableInfo, _ rowid: Int64, values: [SQLiteValue]? = nil) -> ManagedRow {
        synchronized { unsynchronizedRow(table, rowid, values: values) }
    }

    private func unsynchronizedRow(_ table: TableInfo, _ rowid: Int64, values: [SQLiteValue]?) -> ManagedRow {
        table.rows.settle()
        if let existing = table.rows[rowid] {
            if let values, existing.isReused(by: values) {
                // Another object has this rowid now: the old row stays deleted, the new object gets its own.
                existing.isDeleted = true
            } else {
                if let values, existing.loadedVersion != snapshotVersion {
                    existing.values = values
                    existing.loadedVersion = snapshotVersion
                    existing.isDeleted = false
                    existing.decodedCollections.removeAll()
                    existing.decodedMaps.removeAll()
                }
                return existing
            }
        }
        table.pruneRowsIfNeeded()
        let row = ManagedRow(realm: self, table: table, rowid: rowid, values: values)
        table.rows[rowid] = row
        return row
    }

    /// A managed object for a row of `table`.
    func object(_ table: TableInfo, _ rowid: Int64, values: [SQLiteValue]? = nil) -> ObjectBase {
        // A class with no Swift class in this process (a Realm opened through the dynamic API) reads dynamically.
        guard let type = table.objectType else { return DynamicObject(row: row(table, rowid, values: values)) }
        let object = type.init()
        object._row = row(table, rowid, values: values)
        return object
    }

    /// Decodes a single-valued column. Hot path (managed property reads): column → stored value, not through `Value`.
    func decodeColumn(_ value: SQLiteValue, property: Property) -> _StoredValue {
        switch property.type {
        case .object:
            guard case .integer(let rowid) = value, let target = table(named: property.objectClassName ?? "") else {
                return .null
            }
            return .object(object(target, rowid))
        case .mixed:
            guard case .text(let text) = value, let json = JSONValue.parse(text) else { return .null }
            return ValueCoding.mixed(json) { cls, rowid in self.table(named: cls).map { self.object($0, rowid) } }
        default:
            return ValueCoding.scalar(value, type: property.type)
        }
    }

    private func linkResolver(_ property: Property) -> (Int64) -> ObjectBase? {
        let target = property.type == .object ? table(named: property.objectClassName ?? "") : nil
        return { rowid in target.map { self.object($0, rowid) } }
    }

    /// Decodes a list or set column (JSON array).
    func decodeCollection(_ value: SQLiteValue, property: Property) -> [_StoredValue] {
        guard case .text(let text) = value, case .array(let items)? = JSONValue.parse(text) else { return [] }
        let link = linkResolver(property)
        return items.map { ValueCoding.element($0, type: property.type, link: link) }
    }

    /// Decodes a map column (JSON object), sorted by key.
    func decodeMap(_ value: SQLiteValue, property: Property) -> [(String, _StoredValue)] {
        guard case .text(let text) = value, case .object(let fields)? = JSONValue.parse(text) else { return [] }
        let link = linkResolver(property)
        return fields.keys.sorted().map { ($0, ValueCoding.element(fields[$0]!, type: property.type, link: link)) }
    }

    /// The rowid of a linked object, adding it to this Realm if it is unmanaged. Nil (and a pending
    /// error) when it belongs to another Realm.
    func linkTarget(_ object: ObjectBase, for property: Property, owner: String) -> Int64? {
        if let row = object._row {
            if row.realm === self || (row.realm.path == path && !row.realm.isFrozen) {
                if row.realm !== self { return row.rowid }
                // An embedded object created from a nested dictionary just now gets its parent here.
                if row.table.schema.isEmbedded, embeddedKeptInPlace?.table == row.table.className,
                    embeddedKeptInPlace?.rowids.remove(row.rowid) != nil
                {
                    return row.rowid
                }
                if row.table.schema.isEmbedded && parentlessEmbeddedRows.remove(ObjectIdentifier(row)) == nil {
                    fail(Realm.Error(.invalidInput,
                        "Can't set link to existing managed embedded object: '\(owner).\(property.name)'"))
                    return nil
                }
                return row.rowid
            }
            fail(Realm.Error(.invalidInput,
                "Object is already managed by another Realm. Use create instead to copy it into this Realm. "
                    + "('\(owner).\(property.name)')"))
            return nil
        }
        return insertObject(object, update: .error)?.rowid
    }

    /// The column value of a single-valued property, or nil (with a pending error) if it does not fit. Hot path
    /// (managed property writes): stored value → column, not through `Value`.
    func encodeColumn(_ value: _StoredValue, property: Property, owner: String) -> SQLiteValue? {
        if value.isNull {
            if property.isOptional || property.type == .object || property.type == .mixed { return .null }
            fail(Realm.Error(.invalidInput,
                "Invalid null value for non-nullable property '\(owner).\(property.name)'."))
            return nil
        }
        switch property.type {
        case .object:
            guard case .object(let target) = value, target.objectSchema.className == property.objectClassName else {
                fail(typeMismatch(value, property: property, owner: owner))
                return nil
            }
            return linkTarget(target, for: property, owner: owner).map { .integer($0) }
        case .mixed:
            if case .object(let target) = value, target.objectSchema.isEmbedded {
                fail(Realm.Error(.invalidInput, "Cannot store an embedded object in AnyRealmValue property '\(owner).\(property.name)'."))
                return nil
            }
            var failed = false
            let json = ValueCoding.mixed(value) { object in
                let rowid = self.linkTarget(object, for: property, owner: owner)
                if rowid == nil { failed = true }
                return rowid
            }
            return failed ? nil : .text(json.text)
        default:
            // Realm reads decimal text into a decimal property (text that is no number gives NaN).
            if property.type == .decimal128, case .string(let text) = value {
                return ValueCoding.column(.decimal128(Decimal128(value: text)))
            }
            guard let converted = Self.convert(value, to: property.type) else {
                fail(typeMismatch(value, property: property, owner: owner))
                return nil
            }
            return ValueCoding.column(converted)
        }
    }

    /// The JSON text of a list or set.
    func encodeCollection(_ items: [_StoredValue], property: Property, owner: String, dedupe: Bool) -> SQLiteValue? {
        var out: [JSONValue] = []
        var seen: Set<JSONValue> = []
        for item in items {
            guard let element = encodeElement(item, property: property, owner: owner) else { return nil }
            if dedupe && !seen.insert(element).inserted { continue }
            out.append(element)
        }
        return .text(JSONValue.array(out).text)
    }

    /// The JSON text of a map.
    func encodeMap(_ entries: [(String, _StoredValue)], property: Property, owner: String) -> SQLiteValue? {
        var out: [String: JSONValue] = [:]
        for (key, item) in entries {
            if key.hasPrefix("$") || key.contains(".") {
                fail(Realm.Error(.invalidInput,
                    "Invalid key '\(key)' for map property '\(owner).\(property.name)': keys cannot start with '$' or contain '.'."))
                return nil
            }
            guard let element = encodeElement(item, property: property, owner: owner) else { return nil }
            out[key] = element
        }
        return .text(JSONValue.object(out).text)
    }

    func encodeElement(_ item: _StoredValue, property: Property, owner: String) -> JSONValue? {
        if item.isNull {
            if property.isOptional || property.type == .mixed || (property.type == .object && property.collection == .map) {
                return .null
            }
            fail(Realm.Error(.invalidInput, "Invalid null value in collection property '\(owner).\(property.name)'."))
            return nil
        }
        var failed = false
        let link: (ObjectBase) -> Int64? = { object in
            let rowid = self.linkTarget(object, for: property, owner: owner)
            if rowid == nil { failed = true }
            return rowid
        }
        if property.type == .mixed {
            let json = ValueCoding.mixed(item, link: link)
            return failed ? nil : json
        }
        if property.type == .object {
            guard case .object(let target) = item, target.objectSchema.className == property.objectClassName else {
                fail(typeMismatch(item, property: property, owner: owner))
                return nil
            }
            let json = ValueCoding.jsonElement(item, type: .object, link: link)
            return failed ? nil : json
        }
        guard let converted = Self.convert(item, to: property.type) else {
            fail(typeMismatch(item, property: property, owner: owner))
            return nil
        }
        return ValueCoding.jsonElement(converted, type: property.type, link: link)
    }

    func typeMismatch(_ value: _StoredValue, property: Property, owner: String) -> Realm.Error {
        Realm.Error(.invalidInput,
            "Invalid value \(value.debugText) of type '\(value.typeName)' for '\(property.typeDescription)' property "
                + "'\(owner).\(property.name)'.")
    }

    /// Converts a value to the property's type where Realm does (numbers between numeric types).
    static func convert(_ value: _StoredValue, to type: PropertyType) -> _StoredValue? {
        switch (type, value) {
        case (.bool, .bool), (.int, .int), (.float, .float), (.double, .double), (.string, .string), (.data, .data),
            (.date, .date), (.objectId, .objectId), (.decimal128, .decimal128), (.uuid, .uuid):
            return value
        case (.float, .double(let v)): return .float(Float(v))
        case (.float, .int(let v)): return .float(Float(v))
        case (.double, .float(let v)): return .double(Double(v))
        case (.double, .int(let v)): return .double(Double(v))
        case (.decimal128, .int(let v)): return .decimal128(Decimal128(Int(v)))
        case (.decimal128, .double(let v)): return .decimal128(Decimal128(v))
        case (.decimal128, .float(let v)): return .decimal128(Decimal128(value: v))  // by the Float's own text
        case (.int, .double(let v)) where v == v.rounded() && abs(v) < 9.2e18: return .int(Int64(v))
        default: return nil
        }
    }
}
