import Foundation
import OutpostCore

/// The description of a `Results`: its class, filters (each with its own arguments) and the sort,
/// distinct and limit steps in the order they were applied.
///
/// Realm's semantics: a later SORT is the primary order and earlier ones break its ties; DISTINCT
/// keeps the first object of each group in the current order; LIMIT keeps the first n; without a
/// sort, objects come in table (insertion) order.
struct ResultsQuery {
    var filters: [(predicate: QueryPredicate, arguments: [Any])] = []
    var suffixes: [ParsedQuery.Suffix] = []

    /// The SQL selecting the matching rowids (`rid`) in order, with parameters.
    func sql(table: TableInfo, realm: RealmInstance) throws(QueryError) -> (String, [SQLiteValue]) {
        var builder = QuerySQL(realm: realm, arguments: [])
        var conditions: [String] = []
        for filter in filters {
            builder.arguments = filter.arguments
            conditions.append(try builder.predicate(filter.predicate, table: table, alias: "t0"))
        }
        builder.arguments = []
        let from = "FROM \(table.sqlName) t0"
        var sql = "SELECT t0.rowid AS rid \(from)" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        var order: [String] = []
        var orderClause: String { (order + ["t0.rowid"]).joined(separator: ", ") }
        for suffix in suffixes {
            switch suffix {
            case .sort(let keys):
                var terms: [String] = []
                for key in keys {
                    terms.append(try builder.orderTerm(key.keyPath, ascending: key.ascending, table: table, alias: "t0"))
                }
                order = terms + order.filter { !terms.contains($0) }
            case .distinct(let keyPaths):
                var expressions: [String] = []
                for keyPath in keyPaths { expressions.append(try builder.expression(keyPath, table: table, alias: "t0")) }
                sql = "SELECT rid FROM (SELECT t0.rowid AS rid, row_number() OVER (PARTITION BY "
                    + expressions.joined(separator: ", ") + " ORDER BY \(orderClause)) AS rn \(from) "
                    + "WHERE t0.rowid IN (\(sql))) WHERE rn = 1"
            case .limit(let n):
                sql = "SELECT t0.rowid AS rid \(from) WHERE t0.rowid IN (\(sql)) ORDER BY \(orderClause) LIMIT \(max(0, n))"
            }
        }
        if !suffixes.isEmpty { sql = "SELECT t0.rowid AS rid \(from) WHERE t0.rowid IN (\(sql))" }
        return (sql + " ORDER BY \(orderClause)", builder.parameters)
    }
}
