import Foundation
import OutpostCore

/// A class whose instances are stored in a Realm. Declare properties with `@Persisted`.
///
/// ```swift
/// class Item: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var ownerId: String
///     @Persisted var complexity: Int
/// }
/// ```
open class Object: ObjectBase, _RealmCollectionValueInsideOptional {
    /// Realm's: every subclass is stored as an object link.
    public typealias PersistedType = Object

    public required init() {
        super.init()
    }

    /// Creates an unmanaged object from `value`: a dictionary of property values, an array of values in property
    /// order (properties past its end keep their defaults), or another object (managed or not, of this class or any
    /// other with these property names). Nested dictionaries and arrays become linked, embedded and element objects.
    /// Invalid input traps with Realm's message. Call `realm.add(_:)` to store the object.
    public convenience init(value: Any) {
        self.init()
        UnmanagedObjectInput.populate(self, from: value)
    }

    public static var _typeInfo: _TypeInfo { _TypeInfo(.object, optional: true, objectType: self) }
    public func _store() -> _StoredValue { .object(self) }
    public static func _load(_ value: _StoredValue) -> Self? {
        guard case .object(let o) = value else { return nil }
        if let object = o as? Self { return object }
        // A collection read through the dynamic API (`dynamicList`) holds its objects as `DynamicObject`s.
        if Self.self == DynamicObject.self, let row = o._row { return DynamicObject(row: row) as? Self }
        return nil
    }
    public static func _defaultValue() -> Self { Self() }
}

/// An object that lives only inside another object (a property, list or map of its parent), is
/// deleted with its parent and has no primary key.
open class EmbeddedObject: ObjectBase, _RealmCollectionValueInsideOptional {
    /// Realm's: every subclass is stored as an embedded object.
    public typealias PersistedType = EmbeddedObject

    public required init() {
        super.init()
    }

    /// Creates an unmanaged embedded object from `value`, as `Object.init(value:)` does. It is stored by assigning
    /// it to a property of a managed object or adding it to a managed list or map.
    public convenience init(value: Any) {
        self.init()
        UnmanagedObjectInput.populate(self, from: value)
    }

    public static var _typeInfo: _TypeInfo { _TypeInfo(.object, optional: true, objectType: self) }
    public func _store() -> _StoredValue { .object(self) }
    public static func _load(_ value: _StoredValue) -> Self? {
        if case .object(let o) = value { return o as? Self }
        return nil
    }
    public static func _defaultValue() -> Self { Self() }
}

/// Realm's: objects are discoverable as link properties (generic Realm code states `T: _RealmSchemaDiscoverable`).
extension Object: _RealmSchemaDiscoverable {
    public static var _rlmType: PropertyType { .object }
    public static var _rlmOptional: Bool { false }
    public static var _rlmRequireObjc: Bool { false }
}

/// Realm's: embedded objects are discoverable as object properties.
extension EmbeddedObject: _RealmSchemaDiscoverable {
    public static var _rlmType: PropertyType { .object }
    public static var _rlmOptional: Bool { false }
    public static var _rlmRequireObjc: Bool { false }
}
