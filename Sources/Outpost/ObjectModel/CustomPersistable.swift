import Foundation
import OutpostCore

/// A type stored as another type Realm supports, its `PersistedType` (a scalar or an `EmbeddedObject` subclass):
/// `@Persisted var url: URL`, `List<URL>`, `Map<String, URL>` once `URL` maps itself to a `String` (Realm's
/// protocol). Queries run on the persisted type; a value of either type may be an argument.
///
/// ```swift
/// extension URL: FailableCustomPersistable {
///     public typealias PersistedType = String
///     public init?(persistedValue: String) { self.init(string: persistedValue) }
///     public var persistableValue: String { absoluteString }
/// }
/// ```
public protocol CustomPersistable: _CustomPersistable {
    /// The value the persisted form stands for.
    init(persistedValue: PersistedType)
    /// The value in its persisted form.
    var persistableValue: PersistedType { get }
}

/// `CustomPersistable` for a mapping that can fail (Realm's protocol): a persisted value that does not convert
/// traps when read into a non-optional property and reads as nil into an optional one. It must convert the persisted
/// type's default value (what a new non-optional property holds).
public protocol FailableCustomPersistable: _CustomPersistable {
    /// The value the persisted form stands for, or nil when it does not convert.
    init?(persistedValue: PersistedType)
    /// The value in its persisted form.
    var persistableValue: PersistedType { get }
}

/// What both custom-persistable protocols share (Realm's name): storage through the persisted type.
public protocol _CustomPersistable: _PersistableInsideOptional, _RealmCollectionValueInsideOptional, _Persistable {
    /// The value from its persisted form, nil when it does not convert.
    static func _fromPersisted(_ value: PersistedType) -> Self?
    /// The value in its persisted form.
    var _persisted: PersistedType { get }
}

extension _CustomPersistable {
    public static var _typeInfo: _TypeInfo { PersistedType._typeInfo }
    public func _store() -> _StoredValue { _persisted._store() }
    public static func _load(_ value: _StoredValue) -> Self? {
        // An object link may be null: a non-optional value mapped to an object reads one made from a new object.
        if value.isNull, PersistedType._typeInfo.type == .object { return _fromPersisted(PersistedType._rlmDefaultValue()) }
        return PersistedType._load(value).flatMap(_fromPersisted)
    }
    public static func _defaultValue() -> Self { _rlmDefaultValue() }

    /// Realm's: hashes the persisted form.
    public func hash(into hasher: inout Hasher) { _persisted.hash(into: &hasher) }

    /// Whether `value` is of the persisted type (whether or not the failable conversion then succeeds).
    static func _isPersistedForm(_ value: _StoredValue) -> Bool { PersistedType._load(value) != nil }
}

extension CustomPersistable {
    public static func _fromPersisted(_ value: PersistedType) -> Self? { Self(persistedValue: value) }
    public var _persisted: PersistedType { persistableValue }
    public static func _rlmDefaultValue() -> Self { Self(persistedValue: PersistedType._rlmDefaultValue()) }
}

extension FailableCustomPersistable {
    public static func _fromPersisted(_ value: PersistedType) -> Self? { Self(persistedValue: value) }
    public var _persisted: PersistedType { persistableValue }

    public static func _rlmDefaultValue() -> Self {
        guard let value = Self(persistedValue: PersistedType._rlmDefaultValue()) else {
            fatalError("Failed to default construct a \(Self.self) using the default value for persisted type "
                + "\(PersistedType.self). This conversion must either succeed, the property must be optional, or you "
                + "must explicitly specify a default value for the property.")
        }
        return value
    }

    /// Reads a non-optional property: a persisted value that does not convert traps with Realm's text.
    public static func _get(_ accessor: _PropertyAccessor) -> Self {
        let stored = accessor.read()
        guard let persisted = PersistedType._load(stored) else { return _rlmDefaultValue() }
        guard let value = Self(persistedValue: persisted) else {
            fatalError("Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional context.")
        }
        return value
    }
}
