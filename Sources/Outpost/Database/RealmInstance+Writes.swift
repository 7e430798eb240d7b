import Foundation
import OutpostCore

extension RealmInstance {
    /// Writes one property of a managed row (single value or whole collection).
    func setProperty(_ row: ManagedRow, _ propertyIndex: Int, _ content: _PropertyContent) {
        if isFrozen {
            fatalError("Attempting to modify a frozen object - call thaw on the Object instance first.")
        }
        requireWrite()
        row.ensureLoaded()
        let table = row.table
        // Fast path: a plain scalar of the right type (the general path below reports the errors).
        if case .value(let value) = content, let column = table.scalarColumnOfProperty[propertyIndex] {
            if value.isNull {
                if table.propertyIsOptional[propertyIndex] {
                    writeColumn(row, column: column, value: .null)
                    return
                }
            } else if let converted = Self.convert(value, to: table.propertyTypes[propertyIndex]) {
                writeColumn(row, column: column, value: ValueCoding.column(converted))
                return
            }
        }
        let property = table.schema.allProperties[propertyIndex]
        guard let column = table.columnOfProperty[propertyIndex] else {
            fail(Realm.Error(.invalidInput, "Property '\(table.className).\(property.name)' is computed and can't be set."))
            return
        }
        let oldValue = row.values[column]
        if property.collection != .none, property.type == .object, let target = property.objectClassName,
            self.table(named: target)?.schema.isEmbedded == true
        {
            embeddedKeptInPlace = (target, Set(Self.linkedRowids(oldValue, property: property)))
        }
        defer { embeddedKeptInPlace = nil }
        guard let newValue = encode(content, property: property, owner: table.className) else { return }
        if property.isPrimaryKey && !isMigrating {
            if newValue != oldValue {
                fail(Realm.Error(.invalidInput,
                    "Primary key can't be changed after an object is inserted: '\(table.className).\(property.name)' "
                        + "from \(oldValue) to \(newValue)."))
            }
            return
        }
        writeColumn(row, column: column, value: newValue)
        if oldValue != newValue { deleteOrphanedEmbedded(old: oldValue, new: newValue, property: property) }
    }

    /// Encodes any property content to its column value.
    func encode(_ content: _PropertyContent, property: Property, owner: String) -> SQLiteValue? {
        switch content {
        case .value(let v): return encodeColumn(v, property: property, owner: owner)
        case .list(let items): return encodeCollection(items, property: property, owner: owner, dedupe: false)
        case .set(let items): return encodeCollection(items, property: property, owner: owner, dedupe: true)
        case .map(let entries): return encodeMap(entries, property: property, owner: owner)
        case .computed: return nil
        }
    }

    /// Stores a column value and records the modification.
    func writeColumn(_ row: ManagedRow, column: Int, value: SQLiteValue) {
        if pendingInserts.table != nil { flushPendingInserts() }  // the UPDATE below bypasses `cached`
        let table = row.table
        if !commitObservers.isEmpty {
            for observer in commitObservers { observer.rowWillChange(row, in: self) }
        }
        do {
            let stmt = try table.updateStatement(column: column, connection)
            stmt.bind(value, at: 1)
            stmt.bindInt(row.rowid, at: 2)
            defer { stmt.reset() }
            _ = try stmt.step()
        } catch {
            fail(Realm.Error(.fail, "Could not write '\(table.className)' property '\(table.propertyNameOfColumn[column])': \(error)"))
            return
        }
        row.values[column] = value
        if !commitObservers.isEmpty {
            for observer in commitObservers { observer.rowDidUpdate(row, column: column) }
        }
        writeCounter &+= 1
        if !row.decodedCollections.isEmpty { row.decodedCollections[column] = nil }
        if !row.decodedMaps.isEmpty { row.decodedMaps[column] = nil }
        changes.modify(table.className, row.rowid, table.propertyNameOfColumn[column])
    }

    /// Deletes embedded objects that a property no longer refers to.
    private func deleteOrphanedEmbedded(old: SQLiteValue, new: SQLiteValue, property: Property) {
        guard property.type == .object, let target = table(named: property.objectClassName ?? ""),
            target.schema.isEmbedded
        else { return }
        let before = Set(Self.linkedRowids(old, property: property))
        let after = Set(Self.linkedRowids(new, property: property))
        for rowid in before.subtracting(after) {
            deleteRow(self.row(target, rowid))
        }
    }

    /// The rowids a link column (single, list, set or map) refers to.
    static func linkedRowids(_ value: SQLiteValue, property: Property) -> [Int64] {
        switch (property.collection, value) {
        case (.none, .integer(let r)): return [r]
        case (.list, .text(let t)), (.set, .text(let t)):
            guard case .array(let items)? = JSONValue.parse(t) else { return [] }
            return items.compactMap { if case .int(let r) = $0 { r } else { nil } }
        case (.map, .text(let t)):
            guard case .object(let fields)? = JSONValue.parse(t) else { return [] }
            return fields.values.compactMap { if case .int(let r) = $0 { r } else { nil } }
        default: return []
        }
    }

    // MARK: Insert

    /// Adds an unmanaged object (and the unmanaged objects it links to). Returns its row, or nil after
    /// recording an error.
    @discardableResult
    func insertObject(_ object: ObjectBase, update: Realm.UpdatePolicy) -> ManagedRow? {
        requireWrite()
        if let row = object._row {
            // Another instance's object is refused without touching it (its row belongs to that instance's thread).
            if row.realm === self {
                if row.isInvalidated {
                    fail(Realm.Error(.invalidInput, "Adding a deleted or invalidated object to a Realm is not permitted"))
                    return nil
                }
                return row
            }
            fail(Realm.Error(.invalidInput,
                "Object is already managed by another Realm. Use create instead to copy it into this Realm."))
            return nil
        }
        let table = self.table(for: type(of: object))
        if update == .error, let plan = table.insertPlan {
            return insertPlainObject(object, table: table, plan: plan)
        }
        let contents = PropertyReflection.contents(of: object)
        return insertRow(table, contents: contents, update: update, object: object)
    }

    /// Inserts (or, with a primary key and `update`, updates) a row from property contents in schema order.
    func insertRow(_ table: TableInfo, contents: [_PropertyContent], update: Realm.UpdatePolicy, object: ObjectBase?)
        -> ManagedRow?
    {
        let schema = table.schema
        // With `.error`, the unique index on the primary key detects duplicates at INSERT.
        if update != .error, let pkIndex = table.primaryKeyProperty, case .value(let pkValue) = contents[pkIndex] {
            let pkProperty = schema.allProperties[pkIndex]
            guard let pkColumnValue = encodeColumn(pkValue, property: pkProperty, owner: schema.className) else { return nil }
            if let existing = existingRow(table, primaryKey: pkColumnValue, property: pkProperty) {
                let row = self.row(table, existing)
                row.ensureLoaded()
                object?._row = row
                overwrite(row, with: contents, policy: update, skipping: pkIndex)
                if let object { attachCollections(of: object, to: row) }
                return row
            }
        }
        // Plain columns first; links and collections that may refer back to this object after the row exists.
        var values: [SQLiteValue] = []
        values.reserveCapacity(table.propertyOfColumn.count)
        var deferred: [(column: Int, content: _PropertyContent)] = []
        for (column, propertyIndex) in table.propertyOfColumn.enumerated() {
            let property = schema.allProperties[propertyIndex]
            let content = contents[propertyIndex]
            if property.type == .object || property.type == .mixed {
                values.append(SchemaPlan.emptyCollection(property))
                deferred.append((column, content))
                continue
            }
            guard let value = encode(content, property: property, owner: schema.className) else { return nil }
            values.append(value)
        }
        let rowid: Int64
        do {
            let stmt = try connection.cached(table.insertSQL)
            stmt.reset()
            for (i, v) in values.enumerated() { stmt.bind(v, at: Int32(i + 1)) }
            defer { stmt.reset() }
            _ = try stmt.step()
            rowid = connection.lastInsertRowid
            noteInsertedRowid(rowid, in: table)
        } catch let error as SQLiteError where error.code == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ {
            let pk = table.primaryKeyProperty.flatMap { i -> _StoredValue? in
                if case .value(let v) = contents[i] { return v } else { return nil }
            } ?? .null
            fail(Realm.Error(.invalidInput,
                "Attempting to create an object of type '\(schema.className)' with an existing primary key value "
                    + "\(Self.describePrimaryKey(pk))."))
            return nil
        } catch {
            fail(Realm.Error(.fail, "Could not insert a '\(schema.className)' object: \(error)"))
            return nil
        }
        // A new row of its own: SQLite reuses the rowid of the table's last row once it is deleted, and the deleted
        // object's row (still held by its accessors) must stay deleted rather than become this object.
        let row = ManagedRow(realm: self, table: table, rowid: rowid, values: values)
        synchronized { table.rows.insertFresh(row) }
        object?._row = row
        if let object { attachCollections(of: object, to: row) }
        changes.insert(table.className, rowid)
        writeCounter &+= 1
        for (column, content) in deferred {
            let property = schema.allProperties[table.propertyOfColumn[column]]
            guard let value = encode(content, property: property, owner: schema.className) else { return nil }
            if value != values[column] { writeColumn(row, column: column, value: value) }
        }
        return row
    }

    /// Writes `contents` over an existing row (`add`/`create` with `update:`). With `.modified`, as in Realm, equal
    /// values are skipped and an embedded object the row already has is updated in place by the new one (the object
    /// it was stays valid and shows the new values; the new object becomes it), as are a list's by position; `.all`
    /// replaces them (the old ones are deleted).
    private func overwrite(_ row: ManagedRow, with contents: [_PropertyContent], policy: Realm.UpdatePolicy, skipping: Int?) {
        let table = row.table, schema = table.schema
        for (i, content) in contents.enumerated() where i != skipping {
            guard let column = table.columnOfProperty[i] else { continue }
            let property = schema.allProperties[i]
            let old = row.values[column]
            if policy == .modified, property.type == .object, let target = self.table(named: property.objectClassName ?? ""),
                target.schema.isEmbedded
            {
                updateEmbeddedInPlace(content, old: old, property: property, target: target, policy: policy)
            }
            guard let value = encode(content, property: property, owner: schema.className) else { continue }
            if policy == .modified && old == value { continue }
            writeColumn(row, column: column, value: value)
            if old != value { deleteOrphanedEmbedded(old: old, new: value, property: property) }
        }
    }

    /// The unmanaged embedded objects of `content` that take the place of embedded objects the property already has
    /// (its single object; a list's, position by position) become those objects, updated with their values.
    private func updateEmbeddedInPlace(_ content: _PropertyContent, old: SQLiteValue, property: Property,
                                       target: TableInfo, policy: Realm.UpdatePolicy)
    {
        let existing = Self.linkedRowids(old, property: property)
        let replacements: [_StoredValue]
        switch (property.collection, content) {
        case (.none, .value(let value)): replacements = [value]
        case (.list, .list(let items)): replacements = items
        default: return
        }
        for (rowid, replacement) in zip(existing, replacements) {
            guard case .object(let object) = replacement, object._row == nil else { continue }
            let contents = PropertyReflection.contents(of: object)
            let row = self.row(target, rowid)
            row.ensureLoaded()
            object._row = row
            overwrite(row, with: contents, policy: policy, skipping: nil)
            attachCollections(of: object, to: row)
            // Linking it again is allowed once, as for an embedded object made from a nested value.
            parentlessEmbeddedRows.insert(ObjectIdentifier(row))
        }
    }

    /// The collections an object held before it was added become the managed ones of its row (so `let list =
    /// object.items` keeps working after `add`, and `object.items === list`, as in Realm), and its links let go of
    /// the unmanaged objects they held (so unmanaged objects linking in a cycle are freed once added, as in Realm).
    func attachCollections(of object: ObjectBase, to row: ManagedRow) {
        let table = row.table
        guard table.hasCollections || table.hasLinks else { return }
        withExtendedLifetime(object) {
            let base = Unmanaged.passUnretained(object).toOpaque()
            for field in PropertyReflection.fields(of: type(of: object)) {
                guard let (index, property) = table.property(named: field.name),
                    property.collection != .none || property.type == .object
                else { continue }
                field.type.attach(at: base.advanced(by: field.offset), to: _PropertyAccessor(row: row, propertyIndex: index))
            }
        }
    }

    func existingRow(_ table: TableInfo, primaryKey: SQLiteValue, property: Property) -> Int64? {
        synchronized { unsynchronizedExistingRow(table, primaryKey: primaryKey, property: property) }
    }

    private func unsynchronizedExistingRow(_ table: TableInfo, primaryKey: SQLiteValue, property: Property) -> Int64? {
        guard !table.isMissing else { return nil }
        guard let stmt = try? connection.cached(table.lookupSQL(property.columnName, isNull: primaryKey.isNull)) else { return nil }
        stmt.reset()
        stmt.bind(primaryKey, at: 1)
        defer { stmt.reset() }
        return (try? stmt.step()) == true ? stmt.int64(at: 0) : nil
    }

    static func describePrimaryKey(_ value: _StoredValue) -> String {
        switch value {
        case .string(let s): "'\(s)'"
        case .null: "null"
        default: "'\(value.debugText)'"
        }
    }

    // MARK: Delete

    /// Deletes a row: its embedded objects with it, and links to it removed from other objects.
    func deleteRow(_ row: ManagedRow) {
        requireWrite()
        if row.isDeleted || loadRow(row.table, row.rowid) == nil {
            row.isDeleted = true
            fail(Realm.Error(.invalidInput, "Can't delete an object that has been deleted or invalidated ('\(row.table.className)')."))
            return
        }
        row.ensureLoaded()
        if !commitObservers.isEmpty {
            for observer in commitObservers { observer.rowWillChange(row, in: self) }
        }
        let table = row.table
        // Embedded children go with their parent.
        for (column, propertyIndex) in table.propertyOfColumn.enumerated() {
            let property = table.schema.allProperties[propertyIndex]
            guard property.type == .object, let target = self.table(named: property.objectClassName ?? ""),
                target.schema.isEmbedded
            else { continue }
            for child in Self.linkedRowids(row.values[column], property: property) {
                deleteRow(self.row(target, child))
            }
        }
        removeLinks(to: table.className, rowid: row.rowid)
        if !commitObservers.isEmpty {
            for observer in commitObservers { observer.rowWillDelete(row, in: self) }
        }
        do {
            try connection.cached(table.deleteSQL).run([.integer(row.rowid)])
        } catch {
            fail(Realm.Error(.fail, "Could not delete a '\(table.className)' object: \(error)"))
            return
        }
        row.isDeleted = true
        changes.delete(table.className, row.rowid)
        writeCounter &+= 1
    }

    /// Removes links to a deleted object: to-one links become nil, collection elements go away, map
    /// values become nil (as Realm does).
    private func removeLinks(to className: String, rowid: Int64) {
        for (ownerName, schema) in storedSchemas {
            for property in schema.allProperties where property.type == .object && property.objectClassName == className {
                guard let owner = table(named: ownerName) ?? tablesByName[ownerName] else { continue }
                let column = SQL.quote(property.columnName)
                let sql = property.collection == .none
                    ? "SELECT rowid FROM \(owner.sqlName) WHERE \(column) = ?"
                    : "SELECT rowid FROM \(owner.sqlName) WHERE EXISTS (SELECT 1 FROM json_each(\(owner.sqlName).\(column)) WHERE value = ?)"
                guard let rowids = try? connection.cached(sql).rows([.integer(rowid)]) else { continue }
                guard let (propertyIndex, _) = owner.property(column: property.columnName),
                    let col = owner.columnOfProperty[propertyIndex]
                else { continue }
                for r in rowids {
                    guard case .integer(let ownerRowid) = r[0] else { continue }
                    let ownerRow = self.row(owner, ownerRowid)
                    ownerRow.ensureLoaded()
                    let newValue: SQLiteValue
                    switch property.collection {
                    case .none: newValue = .null
                    case .list, .set:
                        guard case .text(let t) = ownerRow.values[col], case .array(let items)? = JSONValue.parse(t) else { continue }
                        newValue = .text(JSONValue.array(items.filter { $0 != .int(rowid) }).text)
                    case .map:
                        guard case .text(let t) = ownerRow.values[col], case .object(let f)? = JSONValue.parse(t) else { continue }
                        newValue = .text(JSONValue.object(f.mapValues { $0 == .int(rowid) ? .null : $0 }).text)
                    }
                    writeColumn(ownerRow, column: col, value: newValue)
                }
            }
        }
    }

    /// Deletes every object of every class.
    func deleteAllObjects() {
        requireWrite()
        writeCounter &+= 1
        for name in storedSchemas.keys {
            guard let table = tablesByName[name] ?? table(named: name) else {
                try? connection.execute("DELETE FROM \(SQL.quote(name))")
                continue
            }
            let rowids = (try? connection.cached("SELECT rowid FROM \(table.sqlName)").rows()) ?? []
            table.rows.settle()
            for r in rowids {
                if case .integer(let id) = r[0] {
                    if !commitObservers.isEmpty {
                        for observer in commitObservers { observer.rowWillDelete(self.row(table, id), in: self) }
                    }
                    changes.delete(name, id)
                    table.rows[id]?.isDeleted = true
                }
            }
            do {
                try connection.execute("DELETE FROM \(table.sqlName)")
            } catch {
                fail(Realm.Error(.fail, "Could not delete the '\(name)' objects: \(error)"))
            }
        }
    }
}

extension SchemaPlan {
    /// The placeholder stored before a link or mixed column is resolved.
    static func emptyCollection(_ property: Property) -> SQLiteValue {
        switch property.collection {
        case .none: .null
        case .list, .set: .text("[]")
        case .map: .text("{}")
        }
    }
}
