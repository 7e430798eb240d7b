import Foundation

extension List {
    /// Registers a block called with the initial list (asynchronously, on the next turn of this thread's
    /// run loop) and after every commit that changes it: elements removed (`deletions`, old indices),
    /// added (`insertions`, new indices), replaced in place or whose linked object changed
    /// (`modifications`). If the owning object is deleted, a last update reports every element deleted.
    ///
    /// - Parameters:
    ///   - keyPaths: For lists of objects, only changes to these properties of the elements count
    ///     (`"name"`, `"owner.name"`). Nil watches every property, four links deep.
    ///   - queue: A serial queue to deliver on, with the list resolved in a Realm confined to it.
    ///   - block: Called with each change.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken
    {
        guard let accessor else {
            fatalError("Only lists which are managed by a Realm support change notifications")
        }
        let owner = CollectionOwner(accessor)
        return accessor.row.realm.addElementsObserver(owner, keyPaths: keyPaths, on: queue, current: self,
                                                      makeCollection: { List(accessor: $0) }, block)
    }
}

extension MutableSet {
    /// Registers a block called with the initial set (asynchronously, on the next turn of this thread's
    /// run loop) and after every commit that changes it, with indices in the set's iteration order:
    /// elements removed (`deletions`, old indices), added (`insertions`) and linked objects that changed
    /// (`modifications`). If the owning object is deleted, a last update reports every element deleted.
    ///
    /// - Parameters:
    ///   - keyPaths: For sets of objects, only changes to these properties of the elements count.
    ///   - queue: A serial queue to deliver on, with the set resolved in a Realm confined to it.
    ///   - block: Called with each change.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken
    {
        guard let accessor else {
            fatalError("Only sets which are managed by a Realm support change notifications")
        }
        let owner = CollectionOwner(accessor)
        return accessor.row.realm.addElementsObserver(owner, keyPaths: keyPaths, on: queue, current: self,
                                                      makeCollection: { MutableSet(accessor: $0) }, block)
    }
}
