import Foundation
import OutpostCore

/// A light view of an `Object`: a class of `@Projected` properties, each a key path into the projected (root) object,
/// read and written through it. Use it as a view model without copying the object.
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// }
///
/// let people: Results<PersonProjection> = realm.objects(PersonProjection.self)
/// let one = PersonProjection(projecting: person)
/// ```
///
/// Properties of the root that are not projected are not part of the projection: their changes are not reported
/// by ``ProjectionObservable/observe(keyPaths:on:_:)``.
open class Projection<Root: ObjectBase & RealmCollectionValue & ThreadConfined>: RealmCollectionValue,
    ProjectionObservable, CustomStringConvertible
{
    /// Realm's: a projection is stored as its root object.
    public typealias PersistedType = Root

    /// The object being projected.
    public let rootObject: Root

    /// A projection of `object`. The projection's `@Projected` properties are checked now (a key path that reads no
    /// persisted property of the root traps).
    public required init(projecting object: Root) {
        rootObject = object
        _ = ProjectionSchema.properties(of: self)
    }

    /// Realm's: the class, the root's class and address, and each property with its root key path and value.
    open var description: String {
        let lines = ProjectionSchema.properties(of: self).map { property in
            let value = rootObject[keyPath: property.keyPath].map { "\($0)" } ?? "nil"
            return "\t\(property.label)(\\.\(property.origin)) = \(value);"
        }
        let address = Unmanaged.passUnretained(rootObject).toOpaque()
        return "\(type(of: self))<\(type(of: rootObject))> <\(address)> {\n\t\(lines.joined(separator: "\n"))\n}"
    }

    // MARK: RealmCollectionValue

    public static var _typeInfo: _TypeInfo { Root._typeInfo }
    public func _store() -> _StoredValue { rootObject._store() }
    public static func _load(_ value: _StoredValue) -> Self? {
        Root._load(value).map { Self(projecting: $0) }
    }
    public static func _defaultValue() -> Self { Self(projecting: Root()) }

    // MARK: Equatable and Hashable

    /// Whether both project the same object: the same row of the same Realm (a frozen one: of the same version).
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        let a = lhs.projectedObject
        let b = rhs.projectedObject
        if a === b { return true }
        guard let x = a._row, let y = b._row, x.rowid == y.rowid, x.table.className == y.table.className else {
            return false
        }
        let sameVersion = x.realm === y.realm
            || (x.realm.isFrozen && y.realm.isFrozen && x.realm.path == y.realm.path
                && x.realm.historyVersion == y.realm.historyVersion)
        return sameVersion && !x.isInvalidated && !y.isInvalidated
    }

    public func hash(into hasher: inout Hasher) {
        if let row = projectedObject._row {
            hasher.combine(row.table.className)
            hasher.combine(row.rowid)
        } else {
            hasher.combine(ObjectIdentifier(rootObject))
        }
    }

    // MARK: ThreadConfined

    /// The Realm of the root object; nil when it is unmanaged.
    public var realm: Realm? { projectedObject.realm }

    /// Whether the root object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { projectedObject.isInvalidated }

    /// Whether the root object is frozen.
    public var isFrozen: Bool { projectedObject.isFrozen }

    /// A projection of a frozen copy of the root object (traps for an unmanaged or deleted object, as freezing one
    /// does).
    public func freeze() -> Self {
        Self(projecting: freezeConfined(rootObject))
    }

    /// A projection of the live root object in this thread's Realm, or nil if it no longer exists there.
    public func thaw() -> Self? {
        thawConfined(rootObject).map { Self(projecting: $0) }
    }

    /// A reference to a projection is a reference to its root object.
    public var _threadSafeHandle: _ThreadSafeHandle? { rootObject._threadSafeHandle }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> Self? {
        Root._resolve(handle, in: realm).map { Self(projecting: $0) }
    }
}

/// `ThreadConfined.freeze()`, unambiguous for a type that also inherits `ObjectBase.freeze()`.
private func freezeConfined<T: ThreadConfined>(_ value: T) -> T { value.freeze() }

/// `ThreadConfined.thaw()`, unambiguous for a type that also inherits `ObjectBase.thaw()`.
private func thawConfined<T: ThreadConfined>(_ value: T) -> T? { value.thaw() }

extension Projection: KeypathSortable {}

/// `@ThreadSafe` finds a projection's Realm through this.
extension Projection: _RealmOwned {}

/// What `Results` needs to hold projections: to make one of a loaded object, and to find the object of one.
protocol ProjectionElement {
    static func projecting(_ object: ObjectBase) -> Self
    /// The root object as an `ObjectBase` (where `Root` has some members twice: as an `ObjectBase` and as
    /// `ThreadConfined`).
    var projectedObject: ObjectBase { get }
}

extension Projection: ProjectionElement {
    static func projecting(_ object: ObjectBase) -> Self { Self(projecting: object as! Root) }
    var projectedObject: ObjectBase { rootObject }
}
