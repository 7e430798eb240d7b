import Foundation
import OutpostCore

extension ObjectBase {
    /// Registers a block called after every commit that changes this object's properties
    /// (`.change` with the changed properties, in schema order) or deletes it (`.deleted`, after which
    /// the block is not called again). There is no initial notification.
    ///
    /// `PropertyChange.oldValue` is only given for commits made on other threads or processes, and
    /// neither value for collection properties, as in Realm. A change inside a linked object is
    /// reported under the link property's name.
    ///
    /// - Parameters:
    ///   - keyPaths: Only changes to these properties are reported (`"dogs.name"` for a property of
    ///     linked objects). Nil watches every property and the objects linked from them, four levels deep.
    ///   - queue: A serial queue to deliver on, with the object resolved in a Realm confined to it.
    ///   - block: Called with each change.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken
    {
        guard let row = _row else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        row.ensureLoaded()
        let source = row.realm
        let className = row.table.className
        let rowid = row.rowid
        let watched = WatchedProperties(keyPaths: keyPaths)
        let table = row.table
        return source.addObserver(
            on: queue, onError: { block(.error($0)) },
            here: {
                guard let object = self as? T else { return nil }
                return Self.observerBody(object, table: table, rowid: rowid, realm: source, watched: watched, block)
            },
            there: { instance in
                guard let table = instance.table(named: className), instance.loadRow(table, rowid) != nil,
                    let object = instance.object(table, rowid) as? T
                else { return nil }
                return Self.observerBody(object, table: table, rowid: rowid, realm: instance, watched: watched, block)
            })
    }

    private static func observerBody<T: ObjectBase>(_ object: T, table: TableInfo, rowid: Int64, realm: RealmInstance,
                                                watched: WatchedProperties,
                                                _ block: @escaping (ObjectChange<T>) -> Void) -> ObserverBody
    {
        var snapshot = realm.loadRow(table, rowid) ?? []
        var deleted = false
        return ObserverBody { changes, notify, isLocal in
            guard !deleted else { return }
            let wasDeleted = changes.tables[table.className]?.deletions.contains(rowid) ?? false
            guard !wasDeleted, let current = realm.loadRow(table, rowid) else {
                deleted = true
                if notify { block(.deleted) }
                return
            }
            let previous = snapshot
            snapshot = current
            guard notify,
                let names = watched.modifiedRows(of: table, in: changes, realm: realm, candidates: [rowid])[rowid]
            else { return }
            var list: [PropertyChange] = []
            for (index, property) in table.schema.allProperties.enumerated() where names.contains(property.name) {
                guard let column = table.columnOfProperty[index] else { continue }
                func value(_ raw: SQLiteValue) -> Any? {
                    property.collection == .none ? realm.decodeColumn(raw, property: property).anyValue : nil
                }
                let oldValue = isLocal || column >= previous.count ? nil : value(previous[column])
                list.append(PropertyChange(name: property.name, oldValue: oldValue, newValue: value(current[column])))
            }
            guard !list.isEmpty else { return }
            block(.change(object, list))
        }
    }
}
