import Foundation
import OutpostCore

// Frozen Realms, objects and collections: immutable snapshots of one version, usable from any thread.
// A frozen Realm is a separate instance with its own connection pinned at the source's version; its
// objects read through one lock (see `RealmInstance.synchronized`).

extension Realm {
    /// A frozen (immutable) snapshot of this Realm at its current version, usable from any thread.
    /// Inside a write transaction, the snapshot is the version the transaction started from.
    /// Freezing twice at the same version returns the same frozen Realm.
    public func freeze() -> Realm {
        if instance.isFrozen { return self }
        do {
            return Realm(instance: try instance.frozenCopy())
        } catch {
            fatalError("Could not freeze the Realm at '\(instance.path)': \(error)")
        }
    }

    /// The live Realm for this Realm's file on the current thread (this Realm itself if it is live).
    public func thaw() -> Realm {
        guard instance.isFrozen else { return self }
        return Realm(instance: RealmInstance.liveInstance(configuration: instance.configuration))
    }
}

extension RealmInstance {
    /// The live instance for `configuration` on the current thread (opened or reused).
    static func liveInstance(configuration: Realm.Configuration) -> RealmInstance {
        do {
            return try Realm(configuration: configuration).instance
        } catch {
            fatalError("Could not open the Realm at '\(configuration.resolvedPath)' to thaw: \(error)")
        }
    }
}

extension ManagedRow {
    /// This row in a frozen copy of its Realm (Realm's traps for deleted and new objects).
    func frozen() -> ManagedRow {
        if realm.isFrozen { return self }
        realm.verifyAccess()
        if isInvalidated { fatalError("Object has been deleted or invalidated.") }
        let frozenRealm: RealmInstance
        do {
            frozenRealm = try realm.frozenCopy()
        } catch {
            fatalError("Could not freeze the Realm at '\(realm.path)': \(error)")
        }
        guard let row = resolve(in: frozenRealm) else {
            fatalError("Cannot freeze an object in the same write transaction as it was created in.")
        }
        return row
    }

    /// This row in the current thread's live Realm, or nil if the object does not exist there.
    func thawed() -> ManagedRow? {
        if !realm.isFrozen { return self }
        return resolve(in: RealmInstance.liveInstance(configuration: realm.configuration))
    }
}

extension ObjectBase {
    /// A frozen copy of this managed object: its values at the Realm's current version, immutable
    /// and usable from any thread. Returns `self` if already frozen; traps for unmanaged objects.
    public func freeze() -> Self {
        guard let row = _row else { fatalError("Unmanaged objects cannot be frozen.") }
        if row.realm.isFrozen { return self }
        let object = type(of: self).init()
        object._row = row.frozen()
        return object
    }

    /// The live version of a frozen object in the current thread's Realm, or nil if it was deleted
    /// (or that Realm has not yet reached the version where it was created). Returns `self` if live.
    public func thaw() -> Self? {
        guard let row = _row else { fatalError("Unmanaged objects cannot be thawed.") }
        if !row.realm.isFrozen { return self }
        guard let live = row.thawed() else { return nil }
        let object = type(of: self).init()
        object._row = live
        return object
    }
}

extension Results {
    /// Whether the results belong to a frozen Realm.
    public var isFrozen: Bool { instance.isFrozen }

    /// Whether the Realm of the results was invalidated (`invalidate()` after they were made, as Realm reports it),
    /// or the object owning the list or set they come from was deleted.
    public var isInvalidated: Bool {
        instance.isInvalidated || owner?.isInvalidated == true || (!instance.isFrozen && epoch != instance.invalidationEpoch)
    }

    /// The results evaluated in a frozen copy of the Realm: they never change and may be used from
    /// any thread. Returns `self` if already frozen.
    public func freeze() -> Results {
        if instance.isFrozen { return self }
        instance.verifyAccess()
        let frozen = Realm(instance: instance).freeze().instance
        return rebound(to: frozen)
    }

    /// Live results with the same query in the current thread's Realm. Returns `self` if live.
    public func thaw() -> Results? {
        guard instance.isFrozen else { return self }
        return rebound(to: RealmInstance.liveInstance(configuration: instance.configuration))
    }

    /// The same query on another instance of the same file.
    func rebound(to target: RealmInstance) -> Results {
        guard let targetTable = target.table(named: table.className) else {
            fatalError("'\(table.className)' is not part of the schema of the Realm at '\(target.path)'.")
        }
        return Results(realm: target, table: targetTable, query: query.detached().attached(to: target), source: source)
    }
}

extension _PropertyAccessor {
    /// The same property of the frozen copy of the owner row.
    func frozen() -> _PropertyAccessor {
        var copy = _PropertyAccessor(uncheckedRow: row.frozen(), propertyIndex: propertyIndex)
        copy.nested = nested
        return copy
    }

    /// The same property of the owner row in the current thread's live Realm, or nil if it is gone.
    func thawed() -> _PropertyAccessor? {
        row.thawed().map {
            var copy = _PropertyAccessor(uncheckedRow: $0, propertyIndex: propertyIndex)
            copy.nested = nested
            return copy
        }
    }
}

extension List {
    /// Whether the list belongs to a frozen object.
    public var isFrozen: Bool { accessor?.row.realm.isFrozen ?? false }

    /// A frozen copy of this managed list (see `Object.freeze()`).
    public func freeze() -> List {
        guard let accessor else {
            fatalError("This method may only be called on RLMArray instances retrieved from an RLMRealm")
        }
        return accessor.row.realm.isFrozen ? self : List(accessor: accessor.frozen())
    }

    /// The live list in the current thread's Realm, or nil if its owner was deleted.
    public func thaw() -> List? {
        guard let accessor else {
            fatalError("This method may only be called on RLMArray instances retrieved from an RLMRealm")
        }
        guard accessor.row.realm.isFrozen else { return self }
        return accessor.thawed().map { List(accessor: $0) }
    }
}

extension MutableSet {
    /// Whether the set belongs to a frozen object.
    public var isFrozen: Bool { accessor?.row.realm.isFrozen ?? false }

    /// Whether the set's owner was deleted or its Realm invalidated.
    public var isInvalidated: Bool { accessor?.row.isInvalidated ?? false }

    /// A frozen copy of this managed set (see `Object.freeze()`).
    public func freeze() -> MutableSet {
        guard let accessor else {
            fatalError("This method may only be called on RLMSet instances retrieved from an RLMRealm")
        }
        return accessor.row.realm.isFrozen ? self : MutableSet(accessor: accessor.frozen())
    }

    /// The live set in the current thread's Realm, or nil if its owner was deleted.
    public func thaw() -> MutableSet? {
        guard let accessor else {
            fatalError("This method may only be called on RLMSet instances retrieved from an RLMRealm")
        }
        guard accessor.row.realm.isFrozen else { return self }
        return accessor.thawed().map { MutableSet(accessor: $0) }
    }
}

extension Map {
    /// Whether the map belongs to a frozen object.
    public var isFrozen: Bool { accessor?.row.realm.isFrozen ?? false }

    /// Whether the map's owner was deleted or its Realm invalidated.
    public var isInvalidated: Bool { accessor?.row.isInvalidated ?? false }

    /// A frozen copy of this managed map (see `Object.freeze()`).
    public func freeze() -> Map {
        guard let accessor else {
            fatalError("This method may only be called on RLMDictionary instances retrieved from an RLMRealm")
        }
        return accessor.row.realm.isFrozen ? self : Map(accessor: accessor.frozen())
    }

    /// The live map in the current thread's Realm, or nil if its owner was deleted.
    public func thaw() -> Map? {
        guard let accessor else {
            fatalError("This method may only be called on RLMDictionary instances retrieved from an RLMRealm")
        }
        guard accessor.row.realm.isFrozen else { return self }
        return accessor.thawed().map { Map(accessor: $0) }
    }
}

extension LinkingObjects {
    /// Whether the owner object is frozen.
    public var isFrozen: Bool { accessor?.row.realm.isFrozen ?? false }

    /// Whether the owner object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { accessor?.row.isInvalidated ?? false }

    /// The linking objects of the frozen copy of the owner (see `Object.freeze()`).
    public func freeze() -> LinkingObjects {
        guard let accessor else { fatalError("Unmanaged objects cannot be frozen.") }
        return accessor.row.realm.isFrozen ? self : LinkingObjects(accessor: accessor.frozen())
    }

    /// The live linking objects in the current thread's Realm, or nil if the owner was deleted.
    public func thaw() -> LinkingObjects? {
        guard let accessor else { fatalError("Unmanaged objects cannot be thawed.") }
        guard accessor.row.realm.isFrozen else { return self }
        return accessor.thawed().map { LinkingObjects(accessor: $0) }
    }
}

/// A query argument object detached from its Realm instance (class and rowid), so a query can move
/// to another instance or thread without taking the source's objects along.
struct DetachedObject: Sendable {
    let className: String
    let rowid: Int64
}

extension ResultsQuery {
    /// The query with its object arguments replaced by `DetachedObject`s.
    func detached() -> ResultsQuery {
        var copy = self
        copy.filters = filters.map { ($0.predicate, $0.arguments.map(Self.detach)) }
        return copy
    }

    /// The query with its `DetachedObject` arguments made objects of `realm`.
    func attached(to realm: RealmInstance) -> ResultsQuery {
        var copy = self
        copy.filters = filters.map { filter in (filter.predicate, filter.arguments.map { Self.attach($0, realm) }) }
        return copy
    }

    private static func detach(_ argument: Any) -> Any {
        if let object = argument as? ObjectBase, let row = object._row {
            return DetachedObject(className: row.table.className, rowid: row.rowid)
        }
        if let array = argument as? [Any] { return array.map(detach) }
        return argument
    }

    private static func attach(_ argument: Any, _ realm: RealmInstance) -> Any {
        if let detached = argument as? DetachedObject {
            guard let table = realm.table(named: detached.className) else { return argument }
            return realm.object(table, detached.rowid)
        }
        if let array = argument as? [Any] { return array.map { attach($0, realm) } }
        return argument
    }
}
