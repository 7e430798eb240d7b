import Foundation
import OutpostCore
import Synchronization

/// A type whose managed instances are confined to the thread (queue, actor) of their Realm:
/// `Object`, `Results`, `List`, `MutableSet`, `Map` and `LinkingObjects`. Pass them to another
/// thread frozen, or with a `ThreadSafeReference`.
public protocol ThreadConfined {
    /// Whether the object was deleted or its Realm invalidated.
    var isInvalidated: Bool { get }
    /// Whether this is a frozen (immutable, any-thread) snapshot.
    var isFrozen: Bool { get }
    /// A frozen snapshot at the Realm's current version.
    func freeze() -> Self
    /// The live version in the current thread's Realm, or nil if it no longer exists.
    func thaw() -> Self?
    /// Implementation detail: what a `ThreadSafeReference` keeps, or nil when unmanaged.
    var _threadSafeHandle: _ThreadSafeHandle? { get }
    /// Implementation detail: the value a handle denotes in `realm`, or nil if it no longer exists.
    static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> Self?
}

/// Implementation detail of `ThreadSafeReference`: where a thread-confined value lives, as plain
/// values (class name, rowid, primary key, query with detached object arguments).
public struct _ThreadSafeHandle: @unchecked Sendable {  // holds only values: no objects or instances
    enum Target {
        case object(className: String, rowid: Int64, primaryKey: SQLiteValue?)
        case property(owner: String, rowid: Int64, primaryKey: SQLiteValue?, propertyIndex: Int)
        case results(className: String, query: ResultsQuery, source: ResultsSource)
    }

    let path: String
    /// The history version of the source Realm when the reference was made.
    let version: Int64
    let target: Target

    init(realm: RealmInstance, target: Target) {
        realm.verifyAccess()
        self.path = realm.path
        self.version = realm.synchronized {
            realm.isFrozen ? realm.historyVersion : ((try? RealmInstance.historyVersion(of: realm.connection)) ?? 0)
        }
        self.target = target
    }

    init(row: ManagedRow) {
        self.init(realm: row.realm, target: .object(className: row.table.className, rowid: row.rowid,
                                                    primaryKey: row.primaryKeyValue))
    }

    init(accessor: _PropertyAccessor) {
        let row = accessor.row
        self.init(realm: row.realm, target: .property(owner: row.table.className, rowid: row.rowid,
                                                      primaryKey: row.primaryKeyValue,
                                                      propertyIndex: accessor.propertyIndex))
    }

    /// The owner row in `realm` (for `.object` and `.property` targets).
    func row(in realm: Realm) -> ManagedRow? {
        switch target {
        case .object(let className, let rowid, let primaryKey), .property(let className, let rowid, let primaryKey, _):
            realm.instance.resolveRow(className: className, rowid: rowid, primaryKey: primaryKey)
        case .results:
            nil
        }
    }

    /// The property accessor in `realm` (for `.property` targets).
    func accessor(in realm: Realm) -> _PropertyAccessor? {
        guard case .property(_, _, _, let index) = target, let row = row(in: realm) else { return nil }
        return _PropertyAccessor(uncheckedRow: row, propertyIndex: index)
    }
}

/// A reference to a thread-confined value that can be passed to another thread and resolved there,
/// once, with `Realm.resolve(_:)`:
///
/// ```swift
/// let reference = ThreadSafeReference(to: person)
/// DispatchQueue(label: "background").async {
///     let realm = try! Realm()
///     guard let person = realm.resolve(reference) else { return }  // deleted meanwhile
///     try! realm.write { person.name = "Jane" }
/// }
/// ```
public struct ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    let handle: _ThreadSafeHandle
    private let state = ResolutionState()

    /// Makes a reference to a managed, valid object or collection. Traps for unmanaged or
    /// invalidated values (Realm's messages).
    public init(to threadConfined: Confined) {
        if threadConfined.isInvalidated {
            fatalError("Cannot construct reference to invalidated object")
        }
        guard let handle = threadConfined._threadSafeHandle else {
            fatalError("Cannot construct reference to unmanaged object, which can be passed across threads directly")
        }
        self.handle = handle
    }

    /// Whether the reference was resolved (it can be resolved only once).
    public var isInvalidated: Bool { state.isResolved }

    /// Marks the reference resolved; false if it already was.
    func markResolved() -> Bool { state.markResolved() }
}

/// Whether a reference has been resolved, shared by its copies.
private final class ResolutionState: Sendable {
    private let resolved = Mutex(false)

    var isResolved: Bool { resolved.withLock { $0 } }

    func markResolved() -> Bool {
        resolved.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

extension Realm {
    /// The value a reference denotes in this Realm, or nil if it was deleted (or this Realm is another file). If this Realm is at an
    /// older version than the one the reference was made at, it is refreshed first. A reference can
    /// be resolved only once.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        instance.verifyAccess()
        guard reference.markResolved() else {
            fatalError("Can only resolve a thread safe reference once.")
        }
        return resolve(reference.handle, as: Confined.self)
    }

    /// The value `handle` denotes in this Realm (refreshed first when older than the handle); a handle can be
    /// resolved any number of times (`@ThreadSafe` keeps one).
    func resolve<Confined: ThreadConfined>(_ handle: _ThreadSafeHandle, as: Confined.Type) -> Confined? {
        // Another file holds other objects: nothing (Realm answers nil too, where the keys name nothing there).
        guard handle.path == instance.path else { return nil }
        if !instance.isFrozen && !instance.isInWriteTransaction && instance.historyVersion < handle.version {
            refresh()
        }
        return Confined._resolve(handle, in: self)
    }
}

extension Object: ThreadConfined {
    public var _threadSafeHandle: _ThreadSafeHandle? { _row.map(_ThreadSafeHandle.init(row:)) }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> Self? {
        guard let row = handle.row(in: realm) else { return nil }
        let object = Self()
        object._row = row
        return object
    }
}

extension Results: ThreadConfined {
    public var _threadSafeHandle: _ThreadSafeHandle? {
        _ThreadSafeHandle(realm: instance, target: .results(className: table.className, query: query.detached(), source: source))
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> Results? {
        guard case .results(let className, let query, let source) = handle.target,
            let table = realm.instance.table(named: className)
        else { return nil }
        return Results(realm: realm.instance, table: table, query: query.attached(to: realm.instance), source: source)
    }
}

extension List: ThreadConfined {
    public var _threadSafeHandle: _ThreadSafeHandle? { accessor.map(_ThreadSafeHandle.init(accessor:)) }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> Self? {
        handle.accessor(in: realm).map { Self(accessor: $0) }
    }
}

extension MutableSet: ThreadConfined {
    public var _threadSafeHandle: _ThreadSafeHandle? { accessor.map(_ThreadSafeHandle.init(accessor:)) }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> Self? {
        handle.accessor(in: realm).map { Self(accessor: $0) }
    }
}

extension Map: ThreadConfined {
    public var _threadSafeHandle: _ThreadSafeHandle? { accessor.map(_ThreadSafeHandle.init(accessor:)) }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> Self? {
        handle.accessor(in: realm).map { Self(accessor: $0) }
    }
}

extension LinkingObjects: ThreadConfined {
    public var _threadSafeHandle: _ThreadSafeHandle? { accessor.map(_ThreadSafeHandle.init(accessor:)) }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) -> LinkingObjects? {
        handle.accessor(in: realm).map { LinkingObjects(accessor: $0) }
    }
}
