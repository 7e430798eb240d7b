import Foundation
import OutpostCore

/// The base class of `Object` and `EmbeddedObject`: a Swift object whose `@Persisted` properties
/// are stored in a Realm once it is managed.
///
/// Subclasses add initializers as `convenience init`s that call `self.init()`, as with Realm.
open class ObjectBase: CustomStringConvertible, Hashable {
    /// The managed row, when the object is managed by a Realm. Implementation detail.
    public var _row: ManagedRow?
    /// Set while the object is a key-path tracing probe. Implementation detail.
    public var _tracer: _KeyPathTracer?

    public required init() {}

    /// The name Realm uses for this class: the Swift class name without its module.
    open class func className() -> String {
        String(describing: self)
    }

    /// Realm's customization point: the name of the property that is the primary key. Realm honours it for
    /// `@Persisted` models too (the override wins over `@Persisted(primaryKey: true)`); the modern form is the latter.
    open class func primaryKey() -> String? { nil }

    /// Realm's customization point for the names properties are stored and synced under, by property name:
    /// `["ownerId": "owner_id"]`. Apps, queries and key paths use the property's name; the file, sync documents,
    /// event payloads and the server use the mapped one (`Property.columnName`).
    open class func propertiesMapping() -> [String: String] { [:] }

    /// Realm's customization point for legacy `@objc dynamic` models: Realm ignores it for `@Persisted` models, and
    /// so does Outpost (declare `@Persisted(indexed: true)`).
    open class func indexedProperties() -> [String] { [] }

    /// Realm's customization point for legacy `@objc dynamic` models: a `@Persisted` model stores only its
    /// `@Persisted` properties, so Realm ignores it for them, and so does Outpost.
    open class func ignoredProperties() -> [String] { [] }

    /// The schema of this class, as `objectSchema` gives it for an instance (Realm's class method; Realm answers an
    /// `RLMObjectSchema`, whose `className` and `properties` read the same).
    open class func sharedSchema() -> ObjectSchema? { ObjectSchemaRegistry.shared.schema(for: self) }

    /// The Realm managing this object, or nil if unmanaged.
    public var realm: Realm? {
        guard let row = _row else { return nil }
        return Realm(instance: row.realm)
    }

    /// Whether the object was deleted, or its Realm invalidated.
    public var isInvalidated: Bool {
        guard let row = _row else { return false }
        return row.isInvalidated
    }

    /// Whether the object is frozen (immutable and usable on any thread).
    public var isFrozen: Bool { _row?.realm.isFrozen ?? false }

    /// The schema of this object's class.
    open var objectSchema: ObjectSchema { ObjectSchemaRegistry.shared.schema(for: type(of: self)) }

    /// The value of the property named `key` (nil for a nil value), or sets it: `dog["name"] = "Rex"`.
    ///
    /// Reading gives the property's own Swift type (`Int8` for an `Int8` property, the object's `List` for a list),
    /// except as Realm's key-value coding answers: an enum as its raw value, an `AnyRealmValue` as what it holds;
    /// setting takes what `create(_:value:)` takes for that property (a value, an array for a collection, a
    /// dictionary or object for a link). An unknown name traps with Realm's text; setting a managed object needs a
    /// write transaction, as setting the property does. (`DynamicObject` overrides it.)
    open subscript(key: String) -> Any? {
        get { _keyValueGet(key) }
        set { _keyValueSet(key, newValue) }
    }

    /// Whether both refer to the same managed object (the same row of the same Realm file).
    public func isSameObject(as object: ObjectBase?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let a = _row, let b = object._row else { return false }
        return a.rowid == b.rowid && a.table.className == b.table.className && a.realm.path == b.realm.path
    }

    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        // As Realm: managed objects with a primary key (or frozen ones) are equal when they are the
        // same row; other objects only when they are the same instance.
        if lhs === rhs { return true }
        guard let a = lhs._row, rhs._row != nil else { return false }
        guard a.table.schema.primaryKeyProperty != nil || a.realm.isFrozen else { return false }
        return lhs.isSameObject(as: rhs)
    }

    public func hash(into hasher: inout Hasher) {
        if let row = _row, row.table.schema.primaryKeyProperty != nil || row.realm.isFrozen {
            hasher.combine(row.table.className)
            hasher.combine(row.rowid)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    /// Realm's: the class and each property (`\tname = value;`), linked objects and collections nested, 5 levels deep.
    open var description: String { _description(depth: CollectionDescription.maxDepth) }

    func _description(depth: Int) -> String {
        guard depth > 0 else { return "<Maximum depth exceeded>" }
        if isInvalidated { return "[invalid object]" }
        let schema = objectSchema
        var text = "\(schema.className) {\n"
        for property in schema.allProperties where property.type != .linkingObjects {
            let value = CollectionDescription.describe(self[property.name], depth: depth - 1)
            text += "\t\(property.name) = \(value.replacingOccurrences(of: "\n", with: "\n\t"));\n"
        }
        return text + "}"
    }
}
