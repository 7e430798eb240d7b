import Foundation
import OutpostCore

/// The description of a `Results`: its class, filters (each with its own arguments) and the sort,
/// distinct and limit steps in the order they were applied.
struct ResultsQuery {
    var filters: [(predicate: QueryPredicate, arguments: [Any])] = []
    var suffixes: [ParsedQuery.Suffix] = []

    /// The SQL selecting the matching rowids in order, with parameters.
    func sql(table: TableInfo, realm: RealmInstance, select: String = "t0.rowid") throws(QueryError) -> (String, [SQLiteValue]) {
        var parameters: [SQLiteValue] = []
        var conditions: [String] = []
        for filter in filters {
            var builder = QuerySQL(realm: realm, arguments: filter.arguments)
            conditions.append(try builder.predicate(filter.predicate, table: table, alias: "t0"))
            parameters += builder.parameters
        }
        var builder = QuerySQL(realm: realm, arguments: [])
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        var sql = "SELECT t0.rowid AS rid FROM \(table.sqlName) t0\(whereClause)"
        var order: [String] = []
        var step = 0
        for suffix in suffixes {
            switch suffix {
            case .sort(let keys):
                var terms: [String] = []
                for key in keys { terms.append(try builder.orderTerm(key.keyPath, ascending: key.ascending, table: table, alias: "t0")) }
                order = terms + order.filter { !terms.contains($0) }
            case .distinct(let keyPaths):
                var exprs: [String] = []
                for kp in keyPaths { exprs.append(try builder.expression(kp, table: table, alias: "t0").0) }
                step += 1
                let rowOrder = order.isEmpty ? "t0.rowid" : order.joined(separator: ", ")
                sql = "SELECT t0.rowid AS rid FROM \(table.sqlName) t0 WHERE t0.rowid IN (SELECT rid FROM ("
                    + "SELECT rid, row_number() OVER (PARTITION BY \(exprs.map { $0.replacingOccurrences(of: "t0.", with: "d\(step).") }.joined(separator: ", ")) "
                    + "ORDER BY \(rowOrder.replacingOccurrences(of: "t0.", with: "d\(step).")) ) AS rn FROM (\(sql)) s\(step) "
                    + "JOIN \(table.sqlName) d\(step) ON d\(step).rowid = s\(step).rid) WHERE rn = 1)"
            case .limit(let n):
                step += 1
                let orderClause = order.isEmpty ? "" : " ORDER BY " + order.joined(separator: ", ")
                sql = "SELECT t0.rowid AS rid FROM \(table.sqlName) t0 WHERE t0.rowid IN (SELECT t0.rowid FROM \(table.sqlName) t0 "
                    + "WHERE t0.rowid IN (\(sql))\(orderClause) LIMIT \(max(0, n)))"
            }
        }
        parameters += builder.parameters
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        return (sql, parameters)
    }
}
