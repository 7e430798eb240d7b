import Foundation
import OutpostCore

/// Describes the stored type of a value: what the schema records for it.
public struct _TypeInfo: Sendable {
    public var type: PropertyType
    public var isOptional: Bool
    /// For links and embedded objects: the linked class.
    public var objectType: ObjectBase.Type?

    public init(_ type: PropertyType, optional: Bool = false, objectType: ObjectBase.Type? = nil) {
        self.type = type
        self.isOptional = optional
        self.objectType = objectType
    }
}

/// A value that can be stored in a property or a collection: Realm's scalar types, their optionals
/// and objects. Implementation detail; Realm's public name for collection elements is
/// `RealmCollectionValue`.
public protocol _StorableValue {
    static var _typeInfo: _TypeInfo { get }
    /// The value in storage form.
    func _store() -> _StoredValue
    /// The value from storage form; nil when the stored value does not fit the type.
    static func _load(_ value: _StoredValue) -> Self?
    /// The default for a property of this type that was never set.
    static func _defaultValue() -> Self
}

/// Types that can be stored inside an `Optional` property (`@Persisted var x: Int?`).
public protocol _PersistableInsideOptional: _StorableValue, _HasPersistedType, _RealmSchemaDiscoverable {}

/// The element type of `List`, `MutableSet`, `Map` and `Results` (Realm's name and shape): hashable, with the type it
/// is stored as (`PersistedType`, itself a collection value), which generic code constrains (`V.PersistedType:
/// MinMaxType`).
public protocol RealmCollectionValue: _StorableValue, Hashable, _HasPersistedType where PersistedType: RealmCollectionValue {
    /// The value of a new element or property never set (Realm's name).
    static func _rlmDefaultValue() -> Self
}

extension RealmCollectionValue {
    public static func _rlmDefaultValue() -> Self { _defaultValue() }
}

/// A collection value that may also be the `Wrapped` of an optional element (`List<Int?>`); every collection value
/// but `AnyRealmValue`, which holds its own null (Realm's name).
public protocol _RealmCollectionValueInsideOptional: RealmCollectionValue, _PersistableInsideOptional
    where PersistedType: _RealmCollectionValueInsideOptional {}

/// The primary key types (Realm's `_PrimaryKey`).
public protocol _PrimaryKey {}

/// Types usable as map keys (only `String`, as in Realm).
public protocol _MapKey: Hashable {
    init(_outpostKey: String)
    var _outpostKey: String { get }
}
extension String: _MapKey {
    public init(_outpostKey: String) { self = _outpostKey }
    public var _outpostKey: String { self }
}

/// What an unmanaged property holds, read when an object is added to a Realm.
public enum _PropertyContent {
    case value(_StoredValue)
    case list([_StoredValue])
    case set([_StoredValue])
    case map([(String, _StoredValue)])
    case computed
}

/// Realm's protocol of the types whose schema is found at run time (the constraint generic Realm code states, as
/// `T: _RealmSchemaDiscoverable`). Realm's `_rlmPopulateProperty(_: RLMProperty)` requirements are Objective-C and
/// absent; every `_Persistable` type conforms, its answers read from `_typeInfo`.
public protocol _RealmSchemaDiscoverable {
    /// The property type a property of this type has (for a collection, its elements').
    static var _rlmType: PropertyType { get }
    static var _rlmOptional: Bool { get }
    /// Whether legacy declarations need `@objc` (Realm's; no Outpost declaration does).
    static var _rlmRequireObjc: Bool { get }
}

/// Anything `@Persisted` accepts: scalars, optionals, links, collections, `LinkingObjects`.
public protocol _Persistable: _RealmSchemaDiscoverable, _HasPersistedType {
    static var _typeInfo: _TypeInfo { get }
    static var _collectionKind: CollectionKind { get }
    static func _defaultValue() -> Self
    /// The unmanaged content to store when the owning object is added.
    func _content() -> _PropertyContent
    /// An unmanaged value holding `content` (for `init(value:)`); nil when the content does not fit the type.
    static func _unmanagedValue(_ content: _PropertyContent) -> Self?
    /// Reads the property of a managed object.
    static func _get(_ accessor: _PropertyAccessor) -> Self
    /// Writes the property of a managed object.
    static func _set(_ value: Self, _ accessor: _PropertyAccessor)
    /// The value returned while a key path is traced (type-safe queries); links return a probe.
    static func _traceValue(_ tracer: _KeyPathTracer) -> Self
    /// A collection an object held when it was added becomes the managed one (reads and writes `accessor`'s
    /// property), so references to it stay good, as in Realm. Nothing for other types.
    static func _attach(_ value: Self, to accessor: _PropertyAccessor)
    /// Whether `value` is a collection attached to `accessor`'s property (the getter then returns it).
    static func _isAttached(_ value: Self, to accessor: _PropertyAccessor) -> Bool
}

extension _Persistable {
    public static func _attach(_ value: Self, to accessor: _PropertyAccessor) {}
    public static func _isAttached(_ value: Self, to accessor: _PropertyAccessor) -> Bool { false }
    public static var _rlmType: PropertyType { _typeInfo.type }
    public static var _rlmOptional: Bool { _typeInfo.isOptional }
    public static var _rlmRequireObjc: Bool { false }
}

extension _Persistable where Self: _StorableValue {
    public static var _collectionKind: CollectionKind { .none }
    public func _content() -> _PropertyContent { .value(_store()) }
    public static func _unmanagedValue(_ content: _PropertyContent) -> Self? {
        guard case .value(let value) = content else { return nil }
        return _load(value)
    }
    public static func _get(_ accessor: _PropertyAccessor) -> Self {
        let stored = accessor.read()
        return Self._load(stored) ?? Self._defaultValue()
    }
    public static func _set(_ value: Self, _ accessor: _PropertyAccessor) {
        accessor.write(value._store())
    }
    public static func _traceValue(_ tracer: _KeyPathTracer) -> Self { _defaultValue() }
}
