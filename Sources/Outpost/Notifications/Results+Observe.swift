import Foundation
import OutpostCore

extension Results {
    /// Calls `block` with the initial results and after every change that affects them.
    /// `keyPaths` limits modifications to those properties.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken
    {
        realm.verifyAccess()
        realm.verifyNotificationsSupported()
        let results = self
        var previous = rowids
        let watched = keyPaths.map { Set($0.map { $0.split(separator: ".").first.map(String.init) ?? $0 }) }
        let className = table.className
        let observer = realm.notifier.add { changes, _ in
            let current = results.rowids
            let diff = CollectionDiff(old: previous, new: current)
            var modifications: [Int] = []
            if let t = changes.tables[className] {
                for (i, r) in current.enumerated() where !diff.insertedSet.contains(r) {
                    if let props = t.modifications[r], watched == nil || !props.isDisjoint(with: watched!) {
                        modifications.append(i)
                    }
                }
            } else if changes.isUnknown {
                modifications = current.indices.filter { !diff.insertedSet.contains(current[$0]) }
            }
            previous = current
            if diff.deletions.isEmpty && diff.insertions.isEmpty && modifications.isEmpty { return }
            block(.update(results, deletions: diff.deletions, insertions: diff.insertions, modifications: modifications))
        }
        let instance = realm
        let token = NotificationToken { [weak instance] in
            guard let instance else { return }
            if let scheduler = instance.scheduler {
                let box = UncheckedBox((instance, observer))
                scheduler.schedule { box.value.0.notifier.remove(box.value.1) }
            } else {
                instance.notifier.remove(observer)
            }
        }
        realm.notifier.tokenObservers[ObjectIdentifier(token)] = observer.id
        // The initial notification comes asynchronously, as in Realm.
        let initial = { if observer.isActive { block(.initial(results)) } }
        if let scheduler = realm.scheduler {
            let box = UncheckedBox(initial)
            scheduler.schedule { box.value() }
        } else {
            initial()
        }
        return token
    }
}

/// Deletions and insertions between two orderings of rowids; moved rows count as both.
struct CollectionDiff {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var insertedSet: Set<Int64> = []

    init(old: [Int64], new: [Int64]) {
        let newSet = Set(new)
        let oldIndex = Dictionary(old.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        for (i, r) in old.enumerated() where !newSet.contains(r) { deletions.append(i) }
        // Rows kept in order (longest increasing run of old positions) stay; the others moved.
        let kept = new.enumerated().compactMap { (i, r) in oldIndex[r].map { (i, $0) } }
        let stay = Self.longestIncreasing(kept.map(\.1))
        var staying = Set<Int>()
        for k in stay { staying.insert(kept[k].0) }
        for (i, r) in new.enumerated() {
            if oldIndex[r] == nil || !staying.contains(i) {
                insertions.append(i)
                insertedSet.insert(r)
                if let o = oldIndex[r] { deletions.append(o) }
            }
        }
        deletions.sort()
    }

    /// Indices of one longest strictly increasing subsequence.
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        var tails: [Int] = []
        var tailIndex: [Int] = []
        var parent = Array(repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if tails[mid] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { parent[i] = tailIndex[lo - 1] }
            if lo == tails.count { tails.append(v); tailIndex.append(i) } else { tails[lo] = v; tailIndex[lo] = i }
        }
        var out: [Int] = []
        var k = tailIndex.last ?? -1
        while k >= 0 { out.append(k); k = parent[k] }
        return out.reversed()
    }
}

extension Realm {
    /// Calls `block` after each change to the Realm.
    public func observe(_ block: @escaping (_ notification: Realm.Notification, _ realm: Realm) -> Void)
        -> NotificationToken
    {
        let instance = self.instance
        instance.verifyNotificationsSupported()
        let observer = instance.notifier.add { changes, realm in
            block(changes.isEmpty ? .refreshRequired : .didChange, Realm(instance: realm))
        }
        let token = NotificationToken { [weak instance] in instance?.notifier.remove(observer) }
        instance.notifier.tokenObservers[ObjectIdentifier(token)] = observer.id
        return token
    }
}

extension Object {
    /// Calls `block` when the object's properties change or it is deleted.
    public func observe<T: Object>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken
    {
        guard let row = _row else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        let instance = row.realm
        instance.verifyNotificationsSupported()
        let className = row.table.className
        let rowid = row.rowid
        let table = row.table
        row.ensureLoaded()
        var snapshot = row.values
        let watched = keyPaths.map(Set.init)
        weak var weakSelf = self
        let observer = instance.notifier.add { changes, realm in
            guard let t = changes.tables[className] else { return }
            if t.deletions.contains(rowid) {
                block(.deleted)
                return
            }
            guard let props = t.modifications[rowid] else { return }
            let relevant = props.filter { watched == nil || watched!.contains($0) }.sorted()
            guard !relevant.isEmpty, let object = weakSelf as? T ?? (realm.object(table, rowid) as? T) else { return }
            let current = realm.loadRow(table, rowid) ?? snapshot
            var list: [PropertyChange] = []
            for name in relevant {
                guard let index = table.propertyIndexByName[name], let column = table.columnOfProperty[index] else { continue }
                let property = table.schema.properties[index]
                func value(_ v: SQLiteValue) -> Any? {
                    property.collection == .none ? AnyRealmValue._load(realm.decodeColumn(v, property: property)) : nil
                }
                list.append(PropertyChange(name: name, oldValue: column < snapshot.count ? value(snapshot[column]) : nil,
                                           newValue: value(current[column])))
            }
            snapshot = current
            block(.change(object, list))
        }
        let token = NotificationToken { [weak instance] in instance?.notifier.remove(observer) }
        instance.notifier.tokenObservers[ObjectIdentifier(token)] = observer.id
        return token
    }
}

extension RealmInstance {
    /// Traps for Realms that never change (Realm's wording).
    func verifyNotificationsSupported() {
        if isFrozen {
            fatalError("Frozen Realms do not change and do not have change notifications.")
        }
    }
}
