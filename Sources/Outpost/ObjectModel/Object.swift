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
open class Object: ObjectBase, _PersistableInsideOptional, RealmCollectionValue {
    public required init() {
        super.init()
    }

    public static var _typeInfo: _TypeInfo { _TypeInfo(.object, optional: true, objectType: self) }
    public func _store() -> _StoredValue { .object(self) }
    public static func _load(_ value: _StoredValue) -> Self? {
        if case .object(let o) = value { return o as? Self }
        return nil
    }
    public static func _defaultValue() -> Self { Self() }
}

/// An object that lives only inside another object (a property, list or map of its parent), is
/// deleted with its parent and has no primary key.
open class EmbeddedObject: ObjectBase, _PersistableInsideOptional, RealmCollectionValue {
    public required init() {
        super.init()
    }

    public static var _typeInfo: _TypeInfo { _TypeInfo(.object, optional: true, objectType: self) }
    public func _store() -> _StoredValue { .object(self) }
    public static func _load(_ value: _StoredValue) -> Self? {
        if case .object(let o) = value { return o as? Self }
        return nil
    }
    public static func _defaultValue() -> Self { Self() }
}
