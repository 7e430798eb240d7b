import Foundation
import OutpostCore

extension Results: RealmCollection {
    public var _results: Results<Element> { self }
}

extension List: RealmCollection {
    public var _results: Results<Element> {
        guard let accessor else { fatalError(Self._unmanagedQueryMessage) }
        return accessor.collectionResults()
    }
}

extension MutableSet: RealmCollection, _OutpostSetCollection {
    public var _results: Results<Element> {
        guard let accessor else { fatalError(Self._unmanagedQueryMessage) }
        return accessor.collectionResults()
    }
}

extension LinkingObjects: RealmCollection {
    public var _results: Results<Element> {
        guard let results else { fatalError("Only linking objects of an object managed by a Realm can be queried") }
        return results
    }
}

extension _PropertyAccessor {
    /// Live results over this list or set property of the owner row, in the collection's order.
    func collectionResults<Element>() -> Results<Element> {
        let realm = row.realm
        realm.verifyAccess()
        let table = property.type == .object ? realm.table(named: property.objectClassName ?? "") ?? row.table : row.table
        return Results(realm: realm, table: table,
                       source: .collection(owner: row.table.className, rowid: row.rowid, property: property.name))
    }
}
