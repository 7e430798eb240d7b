import Foundation
import OutpostCore

/// A collection property of one object (`List`, `MutableSet`, `Map`), found again in any instance of
/// the file by class name, rowid and property: what collection observers re-read after each commit.
struct CollectionOwner {
    let className: String
    let rowid: Int64
    let propertyIndex: Int

    init(_ accessor: _PropertyAccessor) {
        accessor.row.ensureLoaded()
        className = accessor.row.table.className
        rowid = accessor.row.rowid
        propertyIndex = accessor.propertyIndex
    }

    /// The owner's table and the property's column in `realm`, if the owner still exists there.
    func locate(in realm: RealmInstance) -> (table: TableInfo, column: Int)? {
        guard let table = realm.table(named: className), let column = table.columnOfProperty[propertyIndex],
            realm.loadRow(table, rowid) != nil
        else { return nil }
        return (table, column)
    }

    func accessor(in realm: RealmInstance, table: TableInfo) -> _PropertyAccessor {
        _PropertyAccessor(row: realm.row(table, rowid), propertyIndex: propertyIndex)
    }

    /// The stored elements (JSON array items, object rowids as `.int`), or nil if the owner is gone.
    func elements(in realm: RealmInstance, table: TableInfo, column: Int) -> [JSONValue]? {
        guard let values = realm.loadRow(table, rowid) else { return nil }
        guard case .text(let text) = values[column], case .array(let items)? = JSONValue.parse(text) else { return [] }
        return items
    }

    /// The stored entries of a map, or nil if the owner is gone.
    func entries(in realm: RealmInstance, table: TableInfo, column: Int) -> [String: JSONValue]? {
        guard let values = realm.loadRow(table, rowid) else { return nil }
        guard case .text(let text) = values[column], case .object(let fields)? = JSONValue.parse(text) else { return [:] }
        return fields
    }

    func ownerDeleted(in changes: ChangeSet) -> Bool {
        changes.tables[className]?.deletions.contains(rowid) ?? false
    }

    /// The linked objects (by rowid, among `candidates`) that count as modified by `changes`.
    func modifiedTargets(_ changes: ChangeSet, realm: RealmInstance, table: TableInfo, watched: WatchedProperties,
                         candidates: Set<Int64>) -> Set<Int64>
    {
        let property = table.schema.allProperties[propertyIndex]
        guard !candidates.isEmpty, property.type == .object, let targetName = property.objectClassName,
            let target = realm.table(named: targetName)
        else { return [] }
        return Set(watched.modifiedRows(of: target, in: changes, realm: realm, candidates: candidates).keys)
    }
}

extension RealmInstance {
    /// The observer of an ordered (`List`) or unordered (`MutableSet`) collection property: the change is
    /// the diff of the element lists plus the linked objects that changed in place. A list element
    /// replaced at the same index (`list[i] = x`) is a modification, as in Realm. If the owner is
    /// deleted, one last update reports every element deleted.
    func addElementsObserver<C>(_ owner: CollectionOwner, keyPaths: [String]?, on queue: DispatchQueue?,
                                current: C, makeCollection: @escaping (_PropertyAccessor) -> C,
                                _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken
    {
        let watched = WatchedProperties(keyPaths: keyPaths)
        return addObserver(
            on: queue, onError: { block(.error($0)) },
            here: { Self.elementsBody(owner, realm: self, collection: { _ in current }, watched: watched, block) },
            there: { Self.elementsBody(owner, realm: $0, collection: makeCollection, watched: watched, block) })
    }

    private static func elementsBody<C>(_ owner: CollectionOwner, realm: RealmInstance,
                                        collection makeCollection: (_PropertyAccessor) -> C, watched: WatchedProperties,
                                        _ block: @escaping (RealmCollectionChange<C>) -> Void) -> ObserverBody?
    {
        guard let (table, column) = owner.locate(in: realm) else { return nil }
        let collection = makeCollection(owner.accessor(in: realm, table: table))
        var previous: [JSONValue]?
        return ObserverBody(
            initial: {
                previous = owner.elements(in: realm, table: table, column: column)
                block(.initial(collection))
            },
            change: { changes, notify, _ in
                guard let old = previous else { return }
                guard !owner.ownerDeleted(in: changes), let current = owner.elements(in: realm, table: table, column: column)
                else {
                    previous = nil  // the collection is gone: nothing more to report
                    if notify && !old.isEmpty {
                        block(.update(collection, deletions: Array(old.indices), insertions: [], modifications: []))
                    }
                    return
                }
                previous = current
                let change = ElementsChange(old: old, new: current) { stayed in
                    owner.modifiedTargets(changes, realm: realm, table: table, watched: watched, candidates: stayed)
                }
                guard notify, !change.isEmpty else { return }
                block(.update(collection, deletions: change.deletions, insertions: change.insertions,
                              modifications: change.modifications))
            })
    }
}

/// Deletions, insertions and modifications (old indices) between two versions of a collection's elements.
struct ElementsChange {
    var deletions: [Int]
    var insertions: [Int]
    var modifications: [Int]

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// `modifiedTargets` gets the rowids of linked objects that stayed in place and returns the modified ones.
    init(old: [JSONValue], new: [JSONValue], modifiedTargets: (Set<Int64>) -> Set<Int64>) {
        let oldKeys = Occurrence.number(old)
        let newKeys = Occurrence.number(new)
        let diff = CollectionDiff(old: oldKeys, new: newKeys)
        var deleted = Set(diff.deletions)
        var inserted = Set(diff.insertions)
        var modified = Set<Int>()
        // An element replaced at the same index is a modification.
        let oldValues = Set(old)
        let newValues = Set(new)
        for i in deleted.intersection(inserted) where !newValues.contains(old[i]) && !oldValues.contains(new[i]) {
            deleted.remove(i)
            inserted.remove(i)
            modified.insert(i)
        }
        let newKeySet = Set(newKeys)
        var stayed: [Int: Int64] = [:]
        for (i, key) in oldKeys.enumerated() where !deleted.contains(i) && newKeySet.contains(key)
            && !diff.insertedKeys.contains(key)
        {
            if case .int(let rowid) = key.value { stayed[i] = rowid }
        }
        let changedTargets = stayed.isEmpty ? [] : modifiedTargets(Set(stayed.values))
        for (i, rowid) in stayed where changedTargets.contains(rowid) { modified.insert(i) }
        deletions = deleted.sorted()
        insertions = inserted.sorted()
        modifications = modified.sorted()
    }
}
