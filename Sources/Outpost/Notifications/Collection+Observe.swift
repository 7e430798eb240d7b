import Foundation
import OutpostCore

extension RealmCollectionChange {
    /// The same change about another collection (the one the observed results stand for).
    func map<Other>(_ transform: (CollectionType) -> Other) -> RealmCollectionChange<Other> {
        switch self {
        case .initial(let collection): .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            .update(transform(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): .error(error)
        }
    }
}

extension LinkingObjects {
    /// Calls `block` with the initial linking objects and after every change to them, as `Results.observe` does.
    /// Traps, with Realm's text, for the linking objects of an unmanaged object.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken
    {
        guard let results, let handle = _threadSafeHandle else {
            fatalError("Change notifications are only supported on managed collections.")
        }
        return results.observe(keyPaths: keyPaths, on: queue) { change in
            // On a queue, the results belong to that queue's Realm: so do the linking objects handed over.
            block(change.map { results in
                LinkingObjects._resolve(handle, in: Realm(instance: results.instance)) ?? LinkingObjects(accessor: nil)
            })
        }
    }
}

extension AnyRealmCollection {
    /// Calls `block` with the initial elements and after every change to them, as `Results.observe` does; the
    /// collection handed over wraps results over the same elements.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> NotificationToken
    {
        guard realm != nil else { fatalError("Change notifications are only supported on managed collections.") }
        return _results.observe(keyPaths: keyPaths, on: queue) { change in
            block(change.map { AnyRealmCollection($0) })
        }
    }
}
