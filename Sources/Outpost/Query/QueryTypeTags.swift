import Foundation
import OutpostCore

/// A value type with the type it is stored as: itself for Realm's scalars, the raw value for a
/// `PersistableEnum`, `Wrapped.PersistedType?` for optionals (Realm's name). The type-safe query
/// builder and the key-path APIs use it to decide which operators a property supports.
public protocol _HasPersistedType {
    /// The type the value is stored as.
    associatedtype PersistedType
}

/// Tag protocol for the types `<`, `<=`, `>`, `>=`, `.min`, `.max`, `.avg` and `.sum` apply to.
public protocol _QueryNumeric: _RealmSchemaDiscoverable {}

/// Tag protocol for the types `like(_:caseInsensitive:)` applies to.
public protocol _QueryString: _QueryBinary {}

/// Tag protocol for the types the substring operators (`contains`, `starts(with:)`, …) apply to.
public protocol _QueryBinary {}

/// Tag protocol for the types `sorted(ascending:)` and key-path sorts accept (Realm's name). Outpost also sorts
/// `Bool`, `ObjectId` and `UUID`, which Realm does not.
public protocol SortableType {}

/// Tag protocol for the elements `sorted(byKeyPath:)` and key-path sorts apply to: objects (Realm's name).
public protocol KeypathSortable {}

/// Tag protocol for the types `min(of:)` and `max(of:)` apply to (Realm's name).
public protocol MinMaxType {}

/// Tag protocol for the types `sum(of:)` and `average(of:)` apply to (Realm's name).
public protocol AddableType {}

/// A collection property the query builder can look into: `List`, `MutableSet`, `LinkingObjects`.
public protocol _QueryCollection {
    associatedtype Element
}

/// A keyed collection property the query builder can look into: `Map`.
public protocol _QueryKeyedCollection {
    associatedtype Key
    associatedtype Value
}

/// An optional, for generic code over optional and non-optional values (Realm's name): the query builder looks
/// through it (`$0.favorite.name` on a `Dog?` link).
public protocol OptionalProtocol {
    associatedtype Wrapped
    /// The wrapped value (traps on nil); generic code uses it to name `Wrapped` (Realm's).
    func _rlmInferWrappedType() -> Wrapped
}

extension Optional: OptionalProtocol {
    public func _rlmInferWrappedType() -> Wrapped { self! }
}
extension ObjectBase: KeypathSortable {}
extension List: _QueryCollection {}
extension MutableSet: _QueryCollection {}
extension LinkingObjects: _QueryCollection {}
extension Map: _QueryKeyedCollection {}

// MARK: Conformances

extension Bool: _HasPersistedType, SortableType {
    public typealias PersistedType = Bool
}
extension Int: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType, AddableType {
    public typealias PersistedType = Int
}
extension Int8: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType, AddableType {
    public typealias PersistedType = Int8
}
extension Int16: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType, AddableType {
    public typealias PersistedType = Int16
}
extension Int32: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType, AddableType {
    public typealias PersistedType = Int32
}
extension Int64: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType, AddableType {
    public typealias PersistedType = Int64
}
extension Float: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType, AddableType {
    public typealias PersistedType = Float
}
extension Double: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType, AddableType {
    public typealias PersistedType = Double
}
extension Decimal128: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType, AddableType {
    public typealias PersistedType = Decimal128
}
extension Date: _HasPersistedType, _QueryNumeric, SortableType, MinMaxType {
    public typealias PersistedType = Date
}
extension String: _HasPersistedType, _QueryString, SortableType {
    public typealias PersistedType = String
}
extension Data: _HasPersistedType, _QueryBinary, SortableType {
    public typealias PersistedType = Data
}
extension ObjectId: _HasPersistedType, SortableType {
    public typealias PersistedType = ObjectId
}
extension UUID: _HasPersistedType, SortableType {
    public typealias PersistedType = UUID
}
/// Realm's: the aggregates by name can answer Foundation's boxes (`min(ofProperty: "age") as NSNumber?`); they are
/// no property types.
extension NSNumber: _HasPersistedType, MinMaxType, AddableType {
    public typealias PersistedType = NSNumber
}
extension NSDate: _HasPersistedType, MinMaxType {
    public typealias PersistedType = NSDate
}

/// Realm's: the aggregates of mixed values take the numbers (and dates for min and max) among them.
extension AnyRealmValue: MinMaxType, AddableType {}

extension AnyRealmValue: _HasPersistedType, _QueryNumeric, SortableType {
    public typealias PersistedType = AnyRealmValue
}

extension PersistableEnum {
    public typealias PersistedType = RawValue
}

extension Optional: _HasPersistedType where Wrapped: _HasPersistedType {
    public typealias PersistedType = Wrapped.PersistedType?
}
extension Optional: _QueryNumeric where Wrapped: _Persistable, Wrapped.PersistedType: _QueryNumeric {}
extension Optional: _QueryString where Wrapped: _Persistable, Wrapped.PersistedType: _QueryString {}
extension Optional: _QueryBinary where Wrapped: _Persistable, Wrapped.PersistedType: _QueryBinary {}
extension Optional: SortableType where Wrapped: SortableType {}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
extension Optional: AddableType where Wrapped: AddableType {}

// MARK: Stored values through `_HasPersistedType`

/// As in Realm, `_HasPersistedType` is also had by collections, which have no single stored value; the aggregates
/// that take `T: _HasPersistedType` reach the stored form of their scalar `T` through these.
extension _HasPersistedType {
    static func _loadStored(_ value: _StoredValue) -> Self? {
        switch value {
        case .int(let v) where Self.self == NSNumber.self: return NSNumber(value: v) as? Self
        case .double(let v) where Self.self == NSNumber.self: return NSNumber(value: v) as? Self
        case .float(let v) where Self.self == NSNumber.self: return NSNumber(value: v) as? Self
        case .date(let v) where Self.self == NSDate.self: return NSDate(timeIntervalSince1970: v.timeIntervalSince1970) as? Self
        default: break
        }
        // Unwrapped before the cast: a nil result cast to an optional `Self` would read as a loaded nil.
        guard let storable = Self.self as? any _StorableValue.Type, let loaded = storable._load(value) else { return nil }
        return loaded as? Self
    }

    /// The default of a scalar type; traps for a type with no stored value (a collection), which no aggregate
    /// signature lets through.
    static func _storedDefault() -> Self {
        if Self.self == NSNumber.self, let zero = NSNumber(value: 0) as? Self { return zero }
        guard let storable = Self.self as? any _StorableValue.Type, let value = storable._defaultValue() as? Self else {
            preconditionFailure("'\(Self.self)' is not a stored value type")
        }
        return value
    }

    static var _storedTypeInfo: _TypeInfo? { (Self.self as? any _StorableValue.Type)?._typeInfo }
}
