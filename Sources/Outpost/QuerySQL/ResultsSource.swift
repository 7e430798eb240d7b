import Foundation
import OutpostCore

/// Where the rows of a `Results` come from: every object of its class, or the elements of one object's list, set or
/// map property (`list.filter(…)`, `set.sorted(…)`), which keep the collection's order (a list's duplicates too).
///
/// A collection is named by its owner's class, rowid and property rather than held, so the source moves with the
/// query to another instance of the file (frozen copies, thread-safe references, observers on a queue).
enum ResultsSource: Sendable, Equatable {
    case table
    case collection(owner: String, rowid: Int64, property: String)

    /// The `FROM` clause of a query over this source and the expression naming each row in it (its key: the rowid
    /// of a table's object, the position in a list or set, the key in a map). Objects are `t0`; a collection's
    /// entries are `e0` (`e0.value` the element, a linked object's rowid for objects).
    func from(table: TableInfo?, builder: inout QuerySQL) throws(QueryError) -> (from: String, key: String) {
        switch self {
        case .table:
            guard let table else { throw QueryError(.invalidKeyPath, "a query over a class needs its table") }
            return ("FROM \(table.sqlName) t0", "t0.rowid")
        case .collection(let owner, let rowid, let property):
            guard let ownerTable = builder.realm.table(named: owner) else {
                throw QueryError(.invalidKeyPath, "'\(owner)' is not part of the schema")
            }
            let column = ownerTable.property(named: property)?.property.columnName ?? property
            let json = "(SELECT \(SQL.quote(column)) FROM \(ownerTable.sqlName) WHERE rowid = \(builder.param(.integer(rowid))))"
            guard let table else { return ("FROM json_each(\(json)) e0", "e0.key") }
            return ("FROM json_each(\(json)) e0 JOIN \(table.sqlName) t0 ON t0.rowid = e0.value", "e0.key")
        }
    }

    /// Realm's text for a query on a collection of values (only sorting and distinct apply to them).
    static let valueQueryMessage = "Querying is currently only implemented for arrays of Realm Objects"

    /// The owner's property, when this is a collection of the Realm `realm`.
    func ownerProperty(in realm: RealmInstance) -> (table: TableInfo, index: Int, property: Property)? {
        guard case .collection(let owner, _, let name) = self, let table = realm.table(named: owner),
            let (index, property) = table.property(named: name)
        else { return nil }
        return (table, index, property)
    }
}
