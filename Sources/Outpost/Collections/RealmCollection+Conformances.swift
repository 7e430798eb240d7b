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
    /// Live results over this list, set or linking-objects property of the owner row: a list's or set's elements in
    /// its order, or the objects linking here.
    func collectionResults<Element>() -> Results<Element> {
        let realm = row.realm
        realm.verifyAccess()
        if property.type == .linkingObjects { return linkingObjectsResults() }
        let table = property.type == .object ? realm.table(named: property.objectClassName ?? "") ?? row.table : row.table
        return Results(realm: realm, table: table,
                       source: .collection(owner: row.table.className, rowid: row.rowid, property: property.name),
                       owner: row)
    }

    /// The objects whose origin property links to the owner row (`origin == owner`; for a list or set origin, ANY
    /// element).
    private func linkingObjectsResults<Element>() -> Results<Element> {
        let realm = row.realm
        guard let origin = realm.table(named: property.objectClassName ?? ""),
            let (_, originProperty) = origin.property(named: property.linkOriginPropertyName ?? "")
        else {
            fatalError("Property '\(property.linkOriginPropertyName ?? "")' declared as origin of linking objects "
                + "property '\(row.table.className).\(property.name)' does not exist")
        }
        var query = ResultsQuery()
        query.filters.append((.comparison(.keyPath(QueryKeyPath(properties: [originProperty.name])), .equal, .argument(0)),
                              [realm.object(row.table, row.rowid)]))
        return Results(realm: realm, table: origin, query: query)
    }
}
