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
        // Object arguments (a linking-objects query's owner) are named by class and rowid, and made objects of the
        // queue's Realm there.
        let query = self.query.detached()
        let source = self.source
        let watched = WatchedProperties(keyPaths: keyPaths)
        return instance.addObserver(
            on: queue, onError: { block(.error($0)) },
            here: { Self.observerBody(self, watched: watched, block) },
            there: { instance in
                guard let table = instance.table(named: className) else { return nil }
                return Self.observerBody(
                    Results(realm: instance, table: table, query: query.attached(to: instance), source: source),
                    watched: watched, block)
            })
    }

    static func observerBody(_ results: Results, watched: WatchedProperties,
                             _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> ObserverBody
    {
        var previous: [ObservationKey]?
        return ObserverBody(
            initial: {
                previous = results.observationKeys()
                block(.initial(results))
            },
            change: { changes, notify, _ in
                guard let old = previous else { return }  // the initial notification has not run yet
                let current = results.observationKeys()
                previous = current
                // A rowid deleted and reused by an insert in these commits is another object.
                var oldKeys = old
                if results.valueType == nil, let t = changes.tables[results.table.className], !t.deletions.isEmpty,
                    !t.insertions.isEmpty
                {
                    let reused = t.deletions.intersection(t.insertions)
                    if !reused.isEmpty { oldKeys = old.map { reused.contains($0.rowid) ? $0.reused : $0 } }
                }
                let diff = CollectionDiff(old: oldKeys, new: current)
                let stayed = Set(oldKeys).intersection(current).subtracting(diff.insertedKeys)
                var modifications: [Int] = []
                if results.valueType == nil, !stayed.isEmpty {  // values have no identity: a change is a move
                    let modified = watched.modifiedRows(of: results.table, in: changes, realm: results.instance,
                                                        candidates: Set(stayed.map(\.rowid)))
                    modifications = oldKeys.indices.filter { stayed.contains(oldKeys[$0]) && modified[oldKeys[$0].rowid] != nil }
                }
                guard notify, !(diff.deletions.isEmpty && diff.insertions.isEmpty && modifications.isEmpty) else { return }
                block(.update(results, deletions: diff.deletions, insertions: diff.insertions,
                              modifications: modifications))
            })
    }

    /// What identifies each element for the diff of a notification: an object's rowid, or a value's text, with
    /// the occurrence (a list may hold an object or a value twice).
    func observationKeys() -> [ObservationKey] {
        let ids = rowids
        let values = valueType == nil ? nil : cache.values?.elements ?? []
        var seen: [ObservationKey: Int] = [:]
        return ids.map { id in
            let base = ObservationKey(rowid: valueType == nil ? id : 0,
                                      value: values.map { Self.observationText(Int(id) < $0.count ? $0[Int(id)] : .null) })
            var key = base
            key.occurrence = seen[base, default: 0]
            seen[base] = key.occurrence + 1
            return key
        }
    }

    private static func observationText(_ value: _StoredValue) -> String {
        switch value {
        case .data(let data): "binary:" + data.base64EncodedString()
        case .object(let object): "object:\(type(of: object).className())#\(object._row?.rowid ?? -1)"
        default: value.typeName + ":" + value.debugText
        }
    }
}

/// One element of observed results, for diffs (see `Results.observationKeys()`).
struct ObservationKey: Hashable {
    var rowid: Int64
    var value: String?
    var occurrence = 0

    /// The key of another object that took a deleted object's rowid.
    var reused: ObservationKey {
        var key = self
        key.rowid = -rowid
        return key
    }
}
