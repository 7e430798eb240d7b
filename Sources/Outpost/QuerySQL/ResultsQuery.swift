import Foundation
import OutpostCore

/// The description of a `Results`: its class, filters (each with its own arguments) and the sort,
/// distinct and limit steps in the order they were applied.
///
/// Realm's semantics: a later SORT is the primary order and earlier ones break its ties; DISTINCT
/// keeps the first object of each group in the current order; LIMIT keeps the first n; without a
/// sort, objects come in the source's order (table order, or a collection's own order).
struct ResultsQuery {
    var filters: [(predicate: QueryPredicate, arguments: [Any])] = []
    var suffixes: [ParsedQuery.Suffix] = []

    /// The SQL selecting the matching rows in order, with parameters: `rid` (an object's rowid, or for a collection
    /// of values the element's key: its position, or its map key) and, for a collection, `k` (the row's key in it).
    ///
    /// `table` is the objects' class; for a collection of values (`values` is the element type) it is unused, and only
    /// the sort and distinct steps on `self` apply (Realm does not query collections of values).
    func sql(table: TableInfo, realm: RealmInstance, source: ResultsSource = .table, values: PropertyType? = nil)
        throws(QueryError) -> (String, [SQLiteValue])
    {
        var builder = QuerySQL(realm: realm, arguments: [])
        let (from, key) = try source.from(table: values == nil ? table : nil, builder: &builder)
        let row = values == nil ? "t0.rowid" : key
        var conditions: [String] = []
        if values != nil, !filters.isEmpty {
            throw QueryError(.invalidKeyPath, ResultsSource.valueQueryMessage)
        }
        for filter in filters {
            builder.arguments = filter.arguments
            conditions.append(try builder.predicate(filter.predicate, table: table, alias: "t0"))
        }
        builder.arguments = []
        /// A sort or distinct key: a key path of the objects, or `self` of a value.
        func term(_ keyPath: QueryKeyPath, sorting: Bool, ascending: Bool = true) throws(QueryError) -> String {
            guard let values else {
                return sorting ? try builder.orderTerm(keyPath, ascending: ascending, table: table, alias: "t0")
                    : try builder.expression(keyPath, table: table, alias: "t0")
            }
            guard keyPath.components == [.property("self")] else {
                throw QueryError(.invalidKeyPath, "Cannot \(sorting ? "sort" : "distinct") on key path '\(keyPath)': "
                    + "a collection of \(values.realmName) values has only 'self'")
            }
            if sorting, values == .mixed {
                return MixedSortKeyFunction.sql(element: "e0") + (ascending ? " ASC" : " DESC")
            }
            let collation = switch values {
            case .decimal128: " COLLATE \(Decimal128Collation.name)"
            case .data: " COLLATE \(Base64BytesCollation.name)"
            default: ""
            }
            return "e0.value\(collation)" + (sorting ? (ascending ? " ASC" : " DESC") : "")
        }
        // A table's rows are keyed by their rowid: one column. A collection's by their place in it: a second one.
        let keyed = key != row
        let columns = keyed ? "\(row) AS rid, \(key) AS k" : "\(row) AS rid"
        func keys(of sql: String) -> String { keyed ? "SELECT k FROM (\(sql))" : sql }
        let select = "SELECT \(columns) \(from)"
        var sql = select + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        var order: [String] = []
        var orderClause: String { (order + [key]).joined(separator: ", ") }
        for suffix in suffixes {
            switch suffix {
            case .sort(let keys):
                var terms: [String] = []
                for sortKey in keys { terms.append(try term(sortKey.keyPath, sorting: true, ascending: sortKey.ascending)) }
                order = terms + order.filter { !terms.contains($0) }
            case .distinct(let keyPaths):
                var expressions: [String] = []
                var linked: [String] = []
                for keyPath in keyPaths {
                    expressions.append(try term(keyPath, sorting: false))
                    if values == nil { linked += try builder.linksPresent(keyPath, table: table, alias: "t0") }
                }
                sql = "SELECT \(keyed ? "rid, k" : "rid") FROM (SELECT \(columns), row_number() OVER (PARTITION BY "
                    + expressions.joined(separator: ", ") + " ORDER BY \(orderClause)) AS rn \(from) "
                    + "WHERE \(key) IN (\(keys(of: sql)))" + linked.map { " AND \($0)" }.joined() + ") WHERE rn = 1"
            case .limit(let n):
                sql = "\(select) WHERE \(key) IN (\(keys(of: sql))) ORDER BY \(orderClause) LIMIT \(max(0, n))"
            }
        }
        if !suffixes.isEmpty { sql = "\(select) WHERE \(key) IN (\(keys(of: sql)))" }
        return (sql + " ORDER BY \(orderClause)", builder.parameters)
    }
}
