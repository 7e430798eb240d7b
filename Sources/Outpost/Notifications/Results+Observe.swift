import Foundation
import OutpostCore

extension Results {
    /// Registers a block called with the initial results (asynchronously, on the next turn of this
    /// thread's run loop) and after every commit that changes them: which objects entered or left the
    /// results (`deletions` are indices in the previous version, `insertions` in the new one; a moved
    /// object counts as both) and which stayed in place but changed (`modifications`, see
    /// `RealmCollectionChange`).
    ///
    /// - Parameters:
    ///   - keyPaths: Only changes to these properties count as modifications (`"name"`, or
    ///     `"dogs.name"` for a property of linked objects). Nil watches every property and the objects
    ///     linked from them, four levels deep.
    ///   - queue: A serial queue to deliver on, with the results re-evaluated in a Realm confined to it.
    ///     Nil delivers on this thread's run loop.
    ///   - block: Called with each change.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken
    {
        let className = table.className
        let query = self.query
        let source = self.source
        let watched = WatchedProperties(keyPaths: keyPaths)
        return instance.addObserver(
            on: queue, onError: { block(.error($0)) },
            here: { Self.observerBody(self, watched: watched, block) },
            there: { instance in
                guard let table = instance.table(named: className) else { return nil }
                return Self.observerBody(Results(realm: instance, table: table, query: query, source: source), watched: watched, block)
            })
    }

    static func observerBody(_ results: Results, watched: WatchedProperties,
                             _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> ObserverBody
    {
        var previous: [Int64]?
        return ObserverBody(
            initial: {
                previous = results.rowids
                block(.initial(results))
            },
            change: { changes, notify, _ in
                guard let old = previous else { return }  // the initial notification has not run yet
                let current = results.rowids
                previous = current
                // A rowid deleted and reused by an insert in these commits is another object.
                var oldKeys = old
                if let t = changes.tables[results.table.className], !t.deletions.isEmpty, !t.insertions.isEmpty {
                    let reused = t.deletions.intersection(t.insertions)
                    if !reused.isEmpty { oldKeys = old.map { reused.contains($0) ? -$0 : $0 } }
                }
                let diff = CollectionDiff(old: oldKeys, new: current)
                let stayed = Set(oldKeys).intersection(current).subtracting(diff.insertedKeys)
                let modified = stayed.isEmpty ? [:]
                    : watched.modifiedRows(of: results.table, in: changes, realm: results.instance, candidates: stayed)
                let modifications = oldKeys.indices.filter { modified[oldKeys[$0]] != nil }
                guard notify, !(diff.deletions.isEmpty && diff.insertions.isEmpty && modifications.isEmpty) else { return }
                block(.update(results, deletions: diff.deletions, insertions: diff.insertions,
                              modifications: modifications))
            })
    }
}
