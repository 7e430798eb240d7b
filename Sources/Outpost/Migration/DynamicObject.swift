import Foundation
import OutpostCore

/// The objects a migration block works with (Realm's name).
public typealias MigrationObject = DynamicObject

/// An object accessed by property name: an object of the dynamic API (`realm.dynamicObjects("Dog")`,
/// `dynamicCreate`, `dynamicList`), usable without a Swift class for its type, or an object in a migration — an old
/// object (read-only, the data as it was stored) or a new object (readable and writable, in the new schema).
///
/// `object["name"]` and `object.name` return values as Swift values: `Bool`, `Int`, `Float`, `Double`, `String`,
/// `Data`, `Date`, `ObjectId`, `Decimal128`, `UUID`, a `DynamicObject` for a link, or nil. Lists and sets are
/// returned as `[Any]` and maps as `[String: Any]` (a null element is `NSNull()`; `dynamicList(_:)` gives a live
/// `List<DynamicObject>`); `AnyRealmValue` properties return the value they hold.
///
/// Setting a property takes the same values (and arrays or dictionaries for collections). In a migration a value of
/// the wrong type, or a name the class does not have, is recorded and makes opening the Realm throw a `Realm.Error`
/// naming the class, property and value; elsewhere an unknown name traps with Realm's text.
@dynamicMemberLookup
public final class DynamicObject: Object {
    private enum Storage {
        case old(migration: Migration, table: TableInfo, rowid: Int64, values: [SQLiteValue])
        /// A live object, its `_row` (nil for one created unmanaged); `inMigration` records errors instead of trapping.
        case live(inMigration: Bool)
        /// What `Migration.create` returns after a failure (the migration will throw).
        case detached(className: String)
    }

    private var storage: Storage = .live(inMigration: false)

    public required init() {
        super.init()
    }

    init(migration: Migration, table: TableInfo, rowid: Int64, values: [SQLiteValue]) {
        storage = .old(migration: migration, table: table, rowid: rowid, values: values)
        super.init()
    }

    /// A live object of a row; `inMigration` for a migration's new objects.
    init(row: ManagedRow, inMigration: Bool = false) {
        storage = .live(inMigration: inMigration)
        super.init()
        _row = row
    }

    init(detached className: String) {
        storage = .detached(className: className)
        super.init()
    }

    /// The row of a live object.
    var newRow: ManagedRow? {
        if case .live = storage { return _row }
        return nil
    }

    /// The name of the object's class in the Realm.
    var dynamicClassName: String { objectSchema.className }

    /// The schema of the object's class (the old schema for an old object).
    public override var objectSchema: ObjectSchema {
        switch storage {
        case .old(_, let table, _, _): table.schema
        case .live: _row?.table.schema ?? ObjectSchema(className: "DynamicObject", properties: [])
        case .detached(let className): ObjectSchema(className: className, properties: [])
        }
    }

    public override var description: String { dynamicDescription }

    /// The value of a property by name: `dog.name` is `dog["name"]`.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// The value of property `key` (Realm's dynamic objects answer key-value coding's undefined keys with their
    /// properties).
    public func value(forUndefinedKey key: String) -> Any? { self[key] }

    /// Sets property `key` of a live object (Realm's key-value coding for undefined keys).
    public func setValue(_ value: Any?, forUndefinedKey key: String) { self[key] = value }

    /// The value of property `key`, or (for a live object) sets it.
    public override subscript(key: String) -> Any? {
        get {
            switch storage {
            case .old(let migration, let table, _, let values):
                guard let (_, property) = lookUp(key, in: table, realm: migration.realm, recording: true) else { return nil }
                guard let column = table.columnOfProperty[table.propertyIndexByName[key]!] else { return nil }
                return Self.oldValue(values[column], property: property, migration: migration)
            case .live(let inMigration):
                guard let row = _row else { return nil }
                guard let (index, property) = lookUp(key, in: row.table, realm: row.realm, recording: inMigration) else {
                    return nil
                }
                switch property.collection {
                case _ where property.type == .linkingObjects: return nil
                case .none: return Self.swiftValue(row.read(property: index))
                case .list, .set: return row.readCollection(property: index).map { Self.swiftValue($0) ?? NSNull() }
                case .map:
                    var out: [String: Any] = [:]
                    for (k, v) in row.readMap(property: index) { out[k] = Self.swiftValue(v) ?? NSNull() }
                    return out
                }
            case .detached:
                return nil
            }
        }
        set {
            switch storage {
            case .old(let migration, let table, _, _):
                migration.realm.fail(Realm.Error(.invalidInput,
                    "Cannot modify the old object '\(table.className)' in a migration (property '\(key)'); "
                        + "set the property on the new object."))
            case .live(let inMigration):
                guard let row = _row else { return }
                let realm = row.realm
                if !inMigration { realm.requireWrite() }
                guard let (index, property) = lookUp(key, in: row.table, realm: realm, recording: inMigration) else { return }
                guard let content = ValueConversion.content(newValue ?? NSNull(), property: property,
                                                            className: row.table.className, realm: realm)
                else { return }
                realm.setProperty(row, index, content)
            case .detached:
                return
            }
        }
    }

    private func lookUp(_ key: String, in table: TableInfo, realm: RealmInstance, recording: Bool) -> (Int, Property)? {
        guard let found = table.property(named: key) else {
            let message = "Invalid property name '\(key)' for class '\(table.className)'."
            if !recording { fatalError(message) }
            realm.fail(Realm.Error(.invalidInput, message))
            return nil
        }
        return found
    }

    /// The link to store for this object: only new objects can be linked to.
    var storedLink: _StoredValue? {
        guard case .live = storage, let row = _row else { return nil }
        return .object(row.realm.object(row.table, row.rowid))
    }

    // MARK: Values

    /// A stored value as a Swift value (links to new objects as `DynamicObject`s).
    static func swiftValue(_ value: _StoredValue) -> Any? {
        value.anyValue { object in object as? DynamicObject ?? object._row.map { DynamicObject(row: $0) } }
    }

    /// A column of the old data as a Swift value (links to old objects as `DynamicObject`s).
    private static func oldValue(_ value: SQLiteValue, property: Property, migration: Migration) -> Any? {
        switch property.collection {
        case .none:
            switch property.type {
            case .linkingObjects: return nil
            case .object:
                guard case .integer(let rowid) = value, let cls = property.objectClassName else { return nil }
                return migration.oldObject(className: cls, rowid: rowid)
            case .mixed:
                guard case .text(let text) = value, let json = JSONValue.parse(text) else { return nil }
                return oldMixed(json, migration: migration)
            default:
                return swiftValue(ValueCoding.scalar(value, type: property.type))
            }
        case .list, .set:
            guard case .text(let text) = value, case .array(let items)? = JSONValue.parse(text) else { return [Any]() }
            return items.map { oldElement($0, property: property, migration: migration) ?? NSNull() }
        case .map:
            guard case .text(let text) = value, case .object(let fields)? = JSONValue.parse(text) else {
                return [String: Any]()
            }
            return fields.mapValues { oldElement($0, property: property, migration: migration) ?? NSNull() }
        }
    }

    private static func oldElement(_ json: JSONValue, property: Property, migration: Migration) -> Any? {
        switch property.type {
        case .object:
            guard case .int(let rowid) = json, let cls = property.objectClassName else { return nil }
            return migration.oldObject(className: cls, rowid: rowid)
        case .mixed:
            return oldMixed(json, migration: migration)
        default:
            return swiftValue(ValueCoding.element(json, type: property.type) { _ in nil })
        }
    }

    /// An old `AnyRealmValue`: links resolve to old objects.
    private static func oldMixed(_ json: JSONValue, migration: Migration) -> Any? {
        switch json {
        case .array(let items):
            return items.map { oldMixed($0, migration: migration) ?? NSNull() }
        case .object(let fields) where fields.count == 1:
            if case .array(let parts)? = fields["$link"], parts.count == 2, case .string(let cls) = parts[0],
                case .int(let rowid) = parts[1]
            {
                return migration.oldObject(className: cls, rowid: rowid)
            }
            if case .object(let map)? = fields["$map"] {
                return map.mapValues { oldMixed($0, migration: migration) ?? NSNull() }
            }
        default:
            break
        }
        return swiftValue(ValueCoding.mixed(json) { (_: String, _: Int64) in nil })
    }
}

extension DynamicObject {
    /// The class and its properties, one per line (links and collections summarised).
    var dynamicDescription: String {
        let schema = objectSchema
        let lines = schema.allProperties.filter { $0.type != .linkingObjects }.map { property -> String in
            let text: String
            switch self[property.name] {
            case nil: text = "nil"
            case let object as DynamicObject: text = "\(object.objectSchema.className) object"
            case let items as [Any]: text = "[\(items.count) values]"
            case let entries as [String: Any]: text = "{\(entries.count) entries}"
            case let value?: text = "\(value)"
            }
            return "\t\(property.name) = \(text);"
        }
        return "\(schema.className) {\n" + lines.joined(separator: "\n") + "\n}"
    }
}
