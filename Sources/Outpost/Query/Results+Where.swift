import Foundation
import OutpostCore

extension Results where Element: ObjectBase {
    /// The objects matching a type-safe query:
    ///
    /// ```swift
    /// let easy = realm.objects(Item.self).where { $0.complexity <= 4 }
    /// let rexOwners = realm.objects(Owner.self).where { $0.dogs.name == "Rex" && $0.age > 20 }
    /// ```
    ///
    /// Traps if the local query engine cannot run the query (comparing two properties, for now).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let (predicate, arguments) = isIncluded(Query<Element>()).build()
        return filtered(predicate, arguments)
    }
}

extension Results {
    /// These results narrowed by a built predicate and the objects it compares by identity; traps when the local
    /// query engine cannot run it.
    func filtered(_ predicate: QueryPredicate, _ arguments: [Any]) -> Results<Element> {
        var q = query
        q.filters.append((predicate, arguments))
        if !table.isMissing {
            do {
                _ = try q.sql(table: table, realm: instance, source: source, values: valueType)
            } catch {
                preconditionFailure("Cannot run the query '\(predicate)': \(error)")
            }
        }
        return with(q)
    }
}

extension LinkingObjects {
    /// The linking objects matching a type-safe query (see `Results.where(_:)`).
    /// The object owning this property must be managed by a Realm.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        guard let results else {
            preconditionFailure("Only linking objects of an object managed by a Realm can be queried")
        }
        return results.where(isIncluded)
    }
}
