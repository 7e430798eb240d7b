import Foundation
import OutpostCore

/// Translates a query AST into SQL over Outpost's tables: a `WHERE` expression with its parameters,
/// and `ORDER BY` terms.
///
/// - Key paths through links become correlated scalar subqueries; to-many key paths (lists, sets,
///   map values, linking objects) become `EXISTS` over `json_each` or the origin table, with
///   `ANY`/`ALL`/`NONE` as `EXISTS`/`NOT EXISTS … NOT`/`NOT EXISTS` (QuerySQL+KeyPaths.swift).
/// - Every comparison is written so that it is never SQL `NULL` (`IS` for equality, null guards for
///   the others), so `NOT` and `ALL` keep the evaluator's two-valued logic (QuerySQL+Comparisons.swift).
/// - `[c]`/`[d]` fold both sides with `outpost_fold`; Decimal128 uses the `DECIMAL128` collation.
/// - Parameters are numbered (`?1`, `?2`, …) so an expression may appear twice in the SQL.
struct QuerySQL {
    let realm: RealmInstance
    /// Arguments for `$n` / `%@`, as Swift values (set per filter when one builder serves several).
    var arguments: [Any]
    /// The parameter values, in `?n` order.
    private(set) var parameters: [SQLiteValue] = []
    private var aliasCounter = 0
    /// The SUBQUERY variables in scope (`$d` → the element being tested).
    var variables: [String: Binding] = [:]

    init(realm: RealmInstance, arguments: [Any]) {
        self.realm = realm
        self.arguments = arguments
    }

    /// A fresh table alias (`t1`, `t2`, …; `t0` is the queried table).
    mutating func alias() -> String {
        aliasCounter += 1
        return "t\(aliasCounter)"
    }

    /// A numbered placeholder for a value.
    mutating func param(_ value: SQLiteValue) -> String {
        parameters.append(value)
        return "?\(parameters.count)"
    }

    // MARK: Predicates

    mutating func predicate(_ predicate: QueryPredicate, table: TableInfo, alias: String) throws(QueryError) -> String {
        switch predicate.node {
        case .constant(let b): return b ? "1" : "0"
        case .and(let parts):
            guard !parts.isEmpty else { return "1" }
            var out: [String] = []
            for p in parts { out.append(try self.predicate(p, table: table, alias: alias)) }
            return "(" + out.joined(separator: " AND ") + ")"
        case .or(let parts):
            guard !parts.isEmpty else { return "0" }
            var out: [String] = []
            for p in parts { out.append(try self.predicate(p, table: table, alias: alias)) }
            return "(" + out.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "NOT (" + (try self.predicate(inner, table: table, alias: alias)) + ")"
        case .comparison(let c):
            return try comparison(c, table: table, alias: alias)
        }
    }

    // MARK: Sorting and distinct

    /// An `ORDER BY` term for a key path to a single value.
    mutating func orderTerm(_ keyPath: QueryKeyPath, ascending: Bool, table: TableInfo, alias: String) throws(QueryError)
        -> String
    {
        guard case .term(let term) = try resolve(keyPath, table: table, alias: alias, for: "sort") else {
            throw QueryError(.invalidKeyPath, "Cannot sort on key path '\(keyPath)': sorting on collections is not supported")
        }
        let direction = ascending ? "ASC" : "DESC"
        let value = "\(term.sql)\(term.type == .decimal128 ? " COLLATE \(Decimal128Collation.name)" : "") \(direction)"
        // As realm-core: an object whose chain of links is broken sorts after all others when ascending (before them
        // when descending), apart from the objects whose value is null.
        let links = try linksPresent(keyPath, table: table, alias: alias)
        guard !links.isEmpty else { return value }
        return "(CASE WHEN \(links.joined(separator: " AND ")) THEN 0 ELSE 1 END) \(direction), \(value)"
    }

    /// `resolve` for a sort or distinct, a missing property reported in Realm's words for them.
    private mutating func resolve(_ keyPath: QueryKeyPath, table: TableInfo, alias: String, for operation: String)
        throws(QueryError) -> Path
    {
        do {
            return try resolve(keyPath, table: table, alias: alias)
        } catch where error.kind == .invalidKeyPath && error.token != nil && error.position == nil {
            throw QueryError(.invalidKeyPath,
                "Cannot \(operation) on key path '\(keyPath)': property '\(error.token!)' does not exist")
        }
    }

    /// For a distinct through links (`owner.address.city`): each link on the way is set. realm-core leaves out the
    /// objects whose chain of links is broken rather than grouping them under null.
    mutating func linksPresent(_ keyPath: QueryKeyPath, table: TableInfo, alias: String) throws(QueryError) -> [String] {
        var conditions: [String] = []
        for end in keyPath.components.indices.dropLast() {
            guard case .term(let term) = try resolve(QueryKeyPath(Array(keyPath.components[...end])), table: table, alias: alias),
                term.type == .object
            else { continue }
            conditions.append("\(term.sql) IS NOT NULL")
        }
        return conditions
    }

    /// The SQL expression of a key path to a single value (for `DISTINCT`).
    mutating func expression(_ keyPath: QueryKeyPath, table: TableInfo, alias: String) throws(QueryError) -> String {
        guard case .term(let term) = try resolve(keyPath, table: table, alias: alias, for: "distinct") else {
            throw QueryError(.invalidKeyPath, "Cannot distinct on key path '\(keyPath)': it is not a single value")
        }
        return term.type == .decimal128 ? "\(term.sql) COLLATE \(Decimal128Collation.name)" : term.sql
    }
}
