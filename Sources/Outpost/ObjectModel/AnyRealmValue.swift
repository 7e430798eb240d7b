import Foundation
import OutpostCore

/// A property that can hold a value of any Realm type: `@Persisted var value: AnyRealmValue`.
public enum AnyRealmValue: Hashable {
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case object(Object)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case uuid(UUID)
    /// A nested dictionary; read from a managed object, it is live (its changes are written to the object).
    case dictionary(Map<String, AnyRealmValue>)
    /// A nested list; read from a managed object, it is live (its changes are written to the object).
    case list(List<AnyRealmValue>)

    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var floatValue: Float? { if case .float(let v) = self { v } else { nil } }
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    public var dataValue: Data? { if case .data(let v) = self { v } else { nil } }
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { v } else { nil } }
    public var decimal128Value: Decimal128? { if case .decimal128(let v) = self { v } else { nil } }
    public var uuidValue: UUID? { if case .uuid(let v) = self { v } else { nil } }
    public func object<T: Object>(_ objectType: T.Type) -> T? { if case .object(let o) = self { o as? T } else { nil } }
    /// The object held, read by property name (for a class this process has no Swift class for, or any other).
    public var dynamicObject: DynamicObject? {
        guard case .object(let o) = self else { return nil }
        return o as? DynamicObject ?? o._row.map { DynamicObject(row: $0) }
    }

    /// The nested dictionary, if that is what the value holds.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let v) = self { v } else { nil } }
    /// The nested list, if that is what the value holds.
    public var listValue: List<AnyRealmValue>? { if case .list(let v) = self { v } else { nil } }

    /// A new (unmanaged) list holding `array`'s values (Realm's constructor for `.list`).
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// A new (unmanaged) dictionary holding `dictionary`'s values (Realm's constructor for `.dictionary`).
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        map.merge(dictionary, uniquingKeysWith: { $1 })
        return .dictionary(map)
    }

    /// The value for a nested collection read from a managed object: a list or map that reads and writes there.
    static func live(_ stored: _StoredValue, _ accessor: _PropertyAccessor) -> AnyRealmValue? {
        switch stored {
        case .list: .list(List(accessor: accessor))
        case .dictionary: .dictionary(Map(accessor: accessor))
        default: nil
        }
    }

    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case let (.int(a), .int(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case let (.float(a), .float(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.object(a), .object(b)): a == b
        case let (.objectId(a), .objectId(b)): a == b
        case let (.decimal128(a), .decimal128(b)): a == b
        case let (.uuid(a), .uuid(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        case let (.list(a), .list(b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .object(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        // A collection hashes its kind only: equal ones (same property, or unmanaged with equal elements) agree.
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
        }
    }
}

/// `_store()` and `_load(_:)` convert between two representations without `Value` (docs/value-model.md): they are the
/// persistence protocol every managed read and write of an `AnyRealmValue` goes through (a hot path).
extension AnyRealmValue: _Persistable, RealmCollectionValue {
    public static var _typeInfo: _TypeInfo { _TypeInfo(.mixed, optional: true) }
    public static func _defaultValue() -> AnyRealmValue { .none }

    public func _store() -> _StoredValue {
        switch self {
        case .none: .null
        case .int(let v): .int(Int64(v))
        case .bool(let v): .bool(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .object(let v): .object(v)
        case .objectId(let v): .objectId(v)
        case .decimal128(let v): .decimal128(v)
        case .uuid(let v): .uuid(v)
        case .dictionary(let d): .dictionary(Dictionary(d.storedEntries, uniquingKeysWith: { first, _ in first }))
        case .list(let l): .list(l.storedElements)
        }
    }

    public static func _load(_ value: _StoredValue) -> AnyRealmValue? {
        switch value {
        case .null: AnyRealmValue.none
        case .int(let v): .int(Int(v))
        case .bool(let v): .bool(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .object(let o): (o as? Object).map { .object($0) } ?? AnyRealmValue.none
        case .objectId(let v): .objectId(v)
        case .decimal128(let v): .decimal128(v)
        case .uuid(let v): .uuid(v)
        case .list(let l): fromArray(l.map { _load($0) ?? .none })
        case .dictionary(let d): fromDictionary(d.mapValues { _load($0) ?? .none })
        }
    }

    /// A nested collection read from a managed object is live.
    public static func _get(_ accessor: _PropertyAccessor) -> AnyRealmValue {
        let stored = accessor.read()
        return live(stored, accessor.mixedRoot) ?? _load(stored) ?? .none
    }
}

/// An enum stored by its raw value: `enum Status: String, PersistableEnum { … }`.
public protocol PersistableEnum: _RealmCollectionValueInsideOptional, _Persistable, RawRepresentable, CaseIterable,
    MinMaxType, Comparable where RawValue: Comparable & _RealmCollectionValueInsideOptional, PersistedType == RawValue
{}

extension PersistableEnum {
    public static var _typeInfo: _TypeInfo { RawValue._typeInfo }
    public func _store() -> _StoredValue { rawValue._store() }
    public static func _load(_ value: _StoredValue) -> Self? { RawValue._load(value).flatMap { Self(rawValue: $0) } }
    public static func _defaultValue() -> Self { allCases.first! }
    /// Whether `value` is of the raw value's type (whether or not a case has it).
    static func _isRawForm(_ value: _StoredValue) -> Bool { RawValue._load(value) != nil }

    /// Realm's: the first case.
    public init() { self = Self.allCases.first! }

    /// Realm's: cases order by their raw values.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
