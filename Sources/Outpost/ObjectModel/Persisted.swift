import Foundation
import OutpostCore

/// Declares a property stored in a Realm.
///
/// ```swift
/// @Persisted(primaryKey: true) var _id: ObjectId
/// @Persisted(indexed: true) var name: String
/// @Persisted var age = 3
/// @Persisted var dogs: List<Dog>
/// @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// ```
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    /// The unmanaged value; nil until set or first read (then the type's default).
    @usableFromInline var storedValue: Value?
    @usableFromInline let flags: UInt8
    /// `LinkingObjects`: the property of the origin class that links here.
    @usableFromInline let originProperty: String?
    /// A marker used once per key path to find the property's name.
    @usableFromInline var probeTag: Int = 0

    public init() {
        storedValue = nil
        flags = 0
        originProperty = nil
    }

    public init(wrappedValue: Value) {
        storedValue = wrappedValue
        flags = 0
        originProperty = nil
    }

    public init(primaryKey: Bool = false, indexed: Bool = false) {
        storedValue = nil
        flags = (primaryKey ? 1 : 0) | (indexed ? 2 : 0)
        originProperty = nil
    }

    public init(wrappedValue: Value, primaryKey: Bool = false, indexed: Bool = false) {
        storedValue = wrappedValue
        flags = (primaryKey ? 1 : 0) | (indexed ? 2 : 0)
        originProperty = nil
    }

    init(probeTag: Int) {
        storedValue = nil
        flags = 0
        originProperty = nil
        self.probeTag = probeTag
    }

    @available(*, unavailable, message: "@Persisted can only be used as a property on a Realm object")
    public var wrappedValue: Value {
        get { fatalError() }
        // swiftlint:disable:next unused_setter_value
        set { fatalError() }
    }

    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            if let row = object._row {
                let index = row._propertyIndex(storageKeyPath) { propertyName(storageKeyPath) }
                let accessor = _PropertyAccessor(row: row, propertyIndex: index)
                // A managed collection is made once per object and kept (Realm's identity: `obj.list === obj.list`,
                // and the collection the object held before it was added is the managed one now).
                if Value._collectionKind != .none, row._keepsCollections {
                    if let held = object[keyPath: storageKeyPath].storedValue, Value._isAttached(held, to: accessor) {
                        return held
                    }
                    let value = Value._get(accessor)
                    object[keyPath: storageKeyPath].storedValue = value
                    return value
                }
                return Value._get(accessor)
            }
            if let tracer = object._tracer {
                tracer._record(propertyName(storageKeyPath))
                return Value._traceValue(tracer)
            }
            if let value = object[keyPath: storageKeyPath].storedValue {
                return value
            }
            let value = Value._defaultValue()
            object[keyPath: storageKeyPath].storedValue = value
            return value
        }
        set {
            if let row = object._row {
                let index = row._propertyIndex(storageKeyPath) { propertyName(storageKeyPath) }
                Value._set(newValue, _PropertyAccessor(row: row, propertyIndex: index))
            } else {
                object[keyPath: storageKeyPath].storedValue = newValue
            }
        }
    }

    /// Finds the name of the property stored at `keyPath`, once per key path (then cached): writes a
    /// marked wrapper through the key path into a probe instance and finds it with `Mirror`.
    @usableFromInline
    static func propertyName<Root: ObjectBase>(_ keyPath: ReferenceWritableKeyPath<Root, Persisted<Value>>) -> String {
        PropertyNameCache.shared.name(for: keyPath) {
            let tag = PropertyNameCache.shared.nextTag()
            let probe = Root.init()
            probe[keyPath: keyPath] = Persisted(probeTag: tag)
            guard let name = PropertyReflection.propertyName(withProbeTag: tag, in: probe) else {
                fatalError("Outpost could not find the @Persisted property for \(keyPath) in \(Root.self)")
            }
            return name
        }
    }
}

/// Read-only view of a `Persisted` wrapper, for schema discovery through `Mirror`.
protocol PersistedReflectable {
    var isPrimaryKey: Bool { get }
    var isIndexed: Bool { get }
    var linkOrigin: String? { get }
    var tag: Int { get }
    var persistedType: any _Persistable.Type { get }
    func content() -> _PropertyContent
    /// The type of the wrapped value (for a link or a collection of objects, the linked class).
    static var valueTypeInfo: _TypeInfo { get }
    /// Stores `content` in the unmanaged wrapper at `address` (`init(value:)`); false when it does not fit the type.
    static func assign(_ content: _PropertyContent, at address: UnsafeMutableRawPointer) -> Bool
    /// The unmanaged wrapper's value at `address`; on the first read the type's default, stored there as the
    /// wrapper's getter stores it (so a collection read this way is the object's own).
    static func value(at address: UnsafeMutableRawPointer) -> Any
    /// The managed property's value, as the wrapper's getter returns it.
    static func managedValue(_ accessor: _PropertyAccessor) -> Any
    /// Makes the collection the wrapper at `address` holds (if any) the managed one of `accessor`'s property; a link
    /// lets go of the unmanaged object it held.
    static func attach(at address: UnsafeMutableRawPointer, to accessor: _PropertyAccessor)
}

extension Persisted: PersistedReflectable {
    var isPrimaryKey: Bool { flags & 1 != 0 }
    var isIndexed: Bool { flags & 2 != 0 }
    var linkOrigin: String? { originProperty }
    var tag: Int { probeTag }
    var persistedType: any _Persistable.Type { Value.self }
    func content() -> _PropertyContent {
        (storedValue ?? Value._defaultValue())._content()
    }
    static var valueTypeInfo: _TypeInfo { Value._typeInfo }
    static func assign(_ content: _PropertyContent, at address: UnsafeMutableRawPointer) -> Bool {
        guard let value = Value._unmanagedValue(content) else { return false }
        address.assumingMemoryBound(to: Self.self).pointee.storedValue = value
        return true
    }
    static func value(at address: UnsafeMutableRawPointer) -> Any {
        let wrapper = address.assumingMemoryBound(to: Self.self)
        if let value = wrapper.pointee.storedValue { return value }
        let value = Value._defaultValue()
        wrapper.pointee.storedValue = value
        return value
    }
    static func managedValue(_ accessor: _PropertyAccessor) -> Any { Value._get(accessor) }
    static func attach(at address: UnsafeMutableRawPointer, to accessor: _PropertyAccessor) {
        let wrapper = address.assumingMemoryBound(to: Self.self)
        guard Value._collectionKind != .none else {
            // A link reads its row from now on; the unmanaged object it held is let go.
            if Value._typeInfo.type == .object { wrapper.pointee.storedValue = nil }
            return
        }
        guard let value = wrapper.pointee.storedValue else { return }
        Value._attach(value, to: accessor)
    }
}

extension Persisted {
    /// `LinkingObjects` properties: `@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`.
    public init<O>(originProperty: String) where Value == LinkingObjects<O> {
        storedValue = nil
        flags = 0
        self.originProperty = originProperty
    }
}
