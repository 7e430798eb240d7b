import Foundation
import OutpostCore

extension Bool: _Persistable, _RealmCollectionValueInsideOptional {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.bool) }
    public func _store() -> _StoredValue { .bool(self) }
    public static func _load(_ value: _StoredValue) -> Bool? {
        if case .bool(let v) = value { return v }
        if case .int(let v) = value { return v != 0 }
        return nil
    }
    public static func _defaultValue() -> Bool { false }
}

/// Integer types share one stored form (Realm stores every integer width as `int`).
public protocol _PersistableInteger: FixedWidthInteger, _Persistable, _RealmCollectionValueInsideOptional, _PrimaryKey {}

extension _PersistableInteger {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.int) }
    public func _store() -> _StoredValue { .int(Int64(self)) }
    public static func _load(_ value: _StoredValue) -> Self? {
        switch value {
        case .int(let v): return Self(truncatingIfNeeded: v)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }
    public static func _defaultValue() -> Self { 0 }
}

extension Int: _PersistableInteger {}
extension Int8: _PersistableInteger {}
extension Int16: _PersistableInteger {}
extension Int32: _PersistableInteger {}
extension Int64: _PersistableInteger {}

extension Float: _Persistable, _RealmCollectionValueInsideOptional {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.float) }
    public func _store() -> _StoredValue { .float(self) }
    public static func _load(_ value: _StoredValue) -> Float? {
        switch value {
        case .float(let v): return v
        case .double(let v): return Float(v)
        case .int(let v): return Float(v)
        default: return nil
        }
    }
    public static func _defaultValue() -> Float { 0 }
}

extension Double: _Persistable, _RealmCollectionValueInsideOptional {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.double) }
    public func _store() -> _StoredValue { .double(self) }
    public static func _load(_ value: _StoredValue) -> Double? {
        switch value {
        case .double(let v): return v
        case .float(let v): return Double(v)
        case .int(let v): return Double(v)
        default: return nil
        }
    }
    public static func _defaultValue() -> Double { 0 }
}

extension String: _Persistable, _RealmCollectionValueInsideOptional, _PrimaryKey {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.string) }
    public func _store() -> _StoredValue { .string(self) }
    public static func _load(_ value: _StoredValue) -> String? {
        if case .string(let v) = value { return v }
        return nil
    }
    public static func _defaultValue() -> String { "" }
}

extension Data: _Persistable, _RealmCollectionValueInsideOptional {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.data) }
    public func _store() -> _StoredValue { .data(self) }
    public static func _load(_ value: _StoredValue) -> Data? {
        if case .data(let v) = value { return v }
        return nil
    }
    public static func _defaultValue() -> Data { Data() }
}

extension Date: _Persistable, _RealmCollectionValueInsideOptional {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.date) }
    public func _store() -> _StoredValue { .date(self) }
    public static func _load(_ value: _StoredValue) -> Date? {
        if case .date(let v) = value { return v }
        return nil
    }
    /// Realm's: the moment the default is taken (`Date()`), as `@Persisted var created: Date` reads in Realm.
    public static func _defaultValue() -> Date { Date() }
}

extension UUID: _Persistable, _RealmCollectionValueInsideOptional, _PrimaryKey {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.uuid) }
    public func _store() -> _StoredValue { .uuid(self) }
    public static func _load(_ value: _StoredValue) -> UUID? {
        if case .uuid(let v) = value { return v }
        return nil
    }
    public static func _defaultValue() -> UUID { UUID() }
}

extension ObjectId: _Persistable, _RealmCollectionValueInsideOptional, _PrimaryKey {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.objectId) }
    public func _store() -> _StoredValue { .objectId(self) }
    public static func _load(_ value: _StoredValue) -> ObjectId? {
        if case .objectId(let v) = value { return v }
        return nil
    }
    public static func _defaultValue() -> ObjectId { ObjectId.generate() }
}

extension Decimal128: _Persistable, _RealmCollectionValueInsideOptional {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.decimal128) }
    public func _store() -> _StoredValue { .decimal128(self) }
    public static func _load(_ value: _StoredValue) -> Decimal128? {
        switch value {
        case .decimal128(let v): return v
        case .int(let v): return Decimal128(Int(v))
        case .double(let v): return Decimal128(v)
        default: return nil
        }
    }
    public static func _defaultValue() -> Decimal128 { Decimal128(0) }
}
