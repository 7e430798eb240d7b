import Foundation
import OutpostCore

/// What a ``ProjectedCollection`` reads: a list or set of objects and the key path of the value taken from each. The
/// collection's type names only the value, so the objects' collection is kept behind this protocol.
protocol ProjectedElements<Value> {
    associatedtype Value: RealmCollectionValue

    var count: Int { get }
    func value(at position: Int) -> Value
    /// Sets the value through the element at `position`; traps when the key path is not writable.
    func setValue(_ value: Value, at position: Int)
    var realm: Realm? { get }
    var isInvalidated: Bool { get }
    var isFrozen: Bool { get }
    /// The dotted name of the key path the values are read through, from the element (`firstName`).
    var elementPropertyName: String { get }
    func frozen() -> ProjectedCollection<Value>
    func thawed() -> ProjectedCollection<Value>?
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<ProjectedCollection<Value>>) -> Void) -> NotificationToken
}

/// The values at `keyPath` of the objects of `base` (a `List` or `MutableSet`).
struct MappedObjects<Base: RealmCollection, Value: RealmCollectionValue>: ProjectedElements
where Base.Element: ObjectBase, Base.Index == Int {
    let base: Base
    let keyPath: KeyPath<Base.Element, Value>

    var count: Int { base.count }

    func value(at position: Int) -> Value {
        base[position][keyPath: keyPath]
    }

    func setValue(_ value: Value, at position: Int) {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Base.Element, Value> else {
            preconditionFailure("KeyPath is not writable")
        }
        let object = base[position]
        object[keyPath: writable] = value
    }

    var realm: Realm? { base.realm }
    var isInvalidated: Bool { base.isInvalidated }
    var isFrozen: Bool { base.isFrozen }
    var elementPropertyName: String { _name(for: keyPath) }

    /// The same key path over another version of the collection.
    func over(_ other: Base) -> ProjectedCollection<Value> {
        ProjectedCollection(MappedObjects(base: other, keyPath: keyPath))
    }

    func frozen() -> ProjectedCollection<Value> { over(base.freeze()) }

    func thawed() -> ProjectedCollection<Value>? { base.thaw().map { over($0) } }

    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<ProjectedCollection<Value>>) -> Void) -> NotificationToken
    {
        let keyPath = self.keyPath
        func projected(_ collection: Base) -> ProjectedCollection<Value> {
            ProjectedCollection(MappedObjects(base: collection, keyPath: keyPath))
        }
        return base.observe(keyPaths: keyPaths, on: queue) { (change: RealmCollectionChange<Base>) in
            switch change {
            case .initial(let collection):
                block(.initial(projected(collection)))
            case .update(let collection, let deletions, let insertions, let modifications):
                block(.update(projected(collection), deletions: deletions, insertions: insertions,
                              modifications: modifications))
            case .error(let error):
                block(.error(error))
            }
        }
    }
}
