import Foundation
import OutpostCore

/// Realm's dynamic API: objects by class name, read and written by property name, with or without a Swift class
/// for them in this process.
extension Realm {
    /// All objects of the class named `typeName`, as `DynamicObject`s. Traps with Realm's text for a class the Realm
    /// does not have.
    public func dynamicObjects(_ typeName: String) -> Results<DynamicObject> {
        instance.verifyAccess()
        instance.verifyReadable()
        return Results(realm: instance, table: dynamicTable(typeName))
    }

    /// The object of class `typeName` with the given primary key, or nil.
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        instance.verifyAccess()
        let table = dynamicTable(typeName)
        guard let rowid = existingRow(table, primaryKey: key) else { return nil }
        return DynamicObject(row: instance.row(table, rowid))
    }

    /// Creates an object of class `typeName` from `value` (a dictionary, an array in property order or another
    /// object), as `create(_:value:update:)` does, and returns it as a `DynamicObject`.
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error)
        -> DynamicObject
    {
        instance.requireWrite()
        let table = dynamicTable(typeName)
        if update != .error && table.primaryKeyProperty == nil {
            fatalError("'\(typeName)' does not have a primary key and can not be updated")
        }
        guard let contents = ValueConversion.contents(of: value, for: table, realm: instance),
              let row = instance.insertRow(table, contents: contents, update: update, object: nil)
        else {
            return DynamicObject(detached: typeName)  // the write will throw
        }
        return DynamicObject(row: row)
    }

    private func dynamicTable(_ typeName: String) -> TableInfo {
        guard let table = instance.table(named: typeName), !table.isMissing else {
            fatalError("Object type '\(typeName)' not managed by the Realm")
        }
        return table
    }
}

extension Object {
    /// The list property `propertyName` with its objects as `DynamicObject`s (Realm's dynamic API). The object must be
    /// managed. A list of values answers `count` and `isEmpty` (as in Realm); its elements are not objects.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        List<DynamicObject>._get(dynamicAccessor(propertyName, .list))
    }

    /// The set property `propertyName` with its objects as `DynamicObject`s. The object must be managed.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        MutableSet<DynamicObject>._get(dynamicAccessor(propertyName, .set))
    }

    /// The map property `propertyName` with its objects as `DynamicObject`s. The object must be managed.
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        Map<Key, DynamicObject?>._get(dynamicAccessor(propertyName, .map))
    }

    private func dynamicAccessor(_ name: String, _ kind: CollectionKind) -> _PropertyAccessor {
        guard let row = _row else {
            fatalError("The dynamic collection accessors need an object managed by a Realm ('\(name)')")
        }
        guard let (index, property) = row.table.property(named: name) else {
            fatalError("Invalid property name '\(name)' for class '\(row.table.className)'.")
        }
        // A collection of values is accepted, as in Realm, for what needs no element (`count`, `isEmpty`).
        guard property.collection == kind else {
            fatalError("Property '\(row.table.className).\(name)' is not a \(kind == .map ? "map" : kind == .set ? "set" : "list")")
        }
        return _PropertyAccessor(row: row, propertyIndex: index)
    }
}
