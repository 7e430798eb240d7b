import Foundation
import OutpostCore

extension Optional: _StorableValue where Wrapped: _PersistableInsideOptional {
    public static var _typeInfo: _TypeInfo {
        var info = Wrapped._typeInfo
        info.isOptional = true
        return info
    }
    public func _store() -> _StoredValue { self?._store() ?? .null }
    public static func _load(_ value: _StoredValue) -> Self? {
        if value.isNull { return .some(nil) }
        if let loaded = Wrapped._load(value) { return .some(loaded) }
        // A persisted value a failable custom type refuses reads as nil in an optional (Realm's rule).
        if let custom = Wrapped.self as? any _CustomPersistable.Type, custom._isPersistedForm(value) { return .some(nil) }
        // So does a raw value no case of an enum has.
        if let enumeration = Wrapped.self as? any PersistableEnum.Type, enumeration._isRawForm(value) { return .some(nil) }
        return nil
    }
    public static func _defaultValue() -> Self { nil }
}

extension Optional: RealmCollectionValue where Wrapped: _RealmCollectionValueInsideOptional {}
extension Optional: _PrimaryKey where Wrapped: _PrimaryKey {}

extension Optional: _RealmSchemaDiscoverable where Wrapped: _RealmSchemaDiscoverable {
    public static var _rlmType: PropertyType { Wrapped._rlmType }
    public static var _rlmOptional: Bool { true }
    public static var _rlmRequireObjc: Bool { Wrapped._rlmRequireObjc }
}

extension Optional: _Persistable where Wrapped: _PersistableInsideOptional {
    public static var _collectionKind: CollectionKind { .none }
    public func _content() -> _PropertyContent { .value(_store()) }
    public static func _get(_ accessor: _PropertyAccessor) -> Self {
        let stored = accessor.read()
        return Self._load(stored) ?? nil
    }
    public static func _set(_ value: Self, _ accessor: _PropertyAccessor) {
        accessor.write(value._store())
    }
    public static func _traceValue(_ tracer: _KeyPathTracer) -> Self {
        if let objectType = Wrapped._typeInfo.objectType {
            return tracer.probe(objectType) as? Wrapped
        }
        return nil
    }
}
