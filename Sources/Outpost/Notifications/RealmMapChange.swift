import Foundation
import OutpostCore

/// A keyed Realm collection (`Map`), named as in Realm so `RealmMapChange` can use its key type.
public protocol RealmKeyedCollection {
    /// The type of the keys.
    associatedtype Key: _MapKey
    /// The type of the values.
    associatedtype Value: RealmCollectionValue
}

/// A change to a `Map`, delivered to `Map.observe` blocks.
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The first delivery, with the map.
    case initial(Collection)
    /// The map changed: keys removed (present in the previous version), keys added, and keys whose
    /// value was replaced or whose linked object changed.
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// Opening the Realm on the delivery queue failed; the block is not called again.
    case error(Error)
}

extension Map: RealmKeyedCollection {}

extension Map {
    /// Registers a block called with the initial map (asynchronously, on the next turn of this thread's
    /// run loop) and after every commit that changes it, with the keys removed, added, and modified
    /// (value replaced, or the linked object changed). If the owning object is deleted, a last update
    /// reports every key deleted.
    ///
    /// - Parameters:
    ///   - keyPaths: For maps of objects, only changes to these properties of the values count.
    ///   - queue: A serial queue to deliver on, with the map resolved in a Realm confined to it.
    ///   - block: Called with each change.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> NotificationToken
    {
        guard let accessor else {
            fatalError("Only maps which are managed by a Realm support change notifications")
        }
        let owner = CollectionOwner(accessor)
        let watched = WatchedProperties(keyPaths: keyPaths)
        let source = accessor.row.realm
        return source.addObserver(
            on: queue, onError: { block(.error($0)) },
            here: { Self.observerBody(owner, realm: source, map: { _ in self }, watched: watched, block) },
            there: { Self.observerBody(owner, realm: $0, map: { Map(accessor: $0) }, watched: watched, block) })
    }

    private static func observerBody(_ owner: CollectionOwner, realm: RealmInstance,
                                     map makeMap: (_PropertyAccessor) -> Map, watched: WatchedProperties,
                                     _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> ObserverBody?
    {
        guard let (table, column) = owner.locate(in: realm) else { return nil }
        let map = makeMap(owner.accessor(in: realm, table: table))
        var previous: [String: JSONValue]?
        return ObserverBody(
            initial: {
                previous = owner.entries(in: realm, table: table, column: column)
                block(.initial(map))
            },
            change: { changes, notify, _ in
                guard let old = previous else { return }
                let keys = { (names: [String]) in names.sorted().map { Key(_outpostKey: $0) } }
                guard !owner.ownerDeleted(in: changes), let new = owner.entries(in: realm, table: table, column: column)
                else {
                    previous = nil
                    if notify && !old.isEmpty {
                        block(.update(map, deletions: keys(Array(old.keys)), insertions: [], modifications: []))
                    }
                    return
                }
                previous = new
                let deleted = old.keys.filter { new[$0] == nil }
                let inserted = new.keys.filter { old[$0] == nil }
                var modified = Set(new.keys.filter { old[$0] != nil && old[$0] != new[$0] })
                var linked: [String: Int64] = [:]
                for (key, value) in new where old[key] == value {
                    if case .int(let rowid) = value { linked[key] = rowid }
                }
                let changedTargets = owner.modifiedTargets(changes, realm: realm, table: table, watched: watched,
                                                           candidates: Set(linked.values))
                for (key, rowid) in linked where changedTargets.contains(rowid) { modified.insert(key) }
                guard notify, !(deleted.isEmpty && inserted.isEmpty && modified.isEmpty) else { return }
                block(.update(map, deletions: keys(deleted), insertions: keys(inserted), modifications: keys(Array(modified))))
            })
    }
}
