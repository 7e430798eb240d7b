import Foundation
import OutpostCore

/// Translates a query AST into SQL over Outpost's tables: a `WHERE` expression with its parameters,
/// and `ORDER BY` terms. Key paths through links become correlated subqueries, to-many key paths
/// become `EXISTS` over `json_each`, and `[c]`/`[d]` use the `outpost_fold` function.
struct QuerySQL {
    let realm: RealmInstance
    /// Arguments for `$n` / `%@`, as Swift values.
    let arguments: [Any]
    private(set) var parameters: [SQLiteValue] = []
    private var aliasCounter = 0
    /// `SUBQUERY` variables in scope (`$col1`): the element rows' alias and table, or for
    /// collections of values the alias of the `json_each` row and the element property.
    private var variables: [String: (alias: String, table: TableInfo?, element: Property?)] = [:]

    init(realm: RealmInstance, arguments: [Any]) {
        self.realm = realm
        self.arguments = arguments
    }

    private mutating func alias() -> String {
        aliasCounter += 1
        return "t\(aliasCounter)"
    }

    private mutating func param(_ value: SQLiteValue) -> String {
        parameters.append(value)
        return "?"
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

    /// A resolved key path: either a SQL scalar expression, or a to-many hop with the rest of the path.
    private enum Path {
        /// A value expression, with the property whose type it has and whether it is a JSON element.
        case scalar(sql: String, property: Property?, isElement: Bool)
        /// A to-many step: `from` is a FROM clause producing rows aliased `alias`; the remaining path
        /// applies to those rows (element values are `alias.value` when `elementProperty` is set).
        case many(from: String, alias: String, table: TableInfo?, elementProperty: Property?, rest: ArraySlice<QueryKeyPath.Component>)
    }

    private mutating func resolve(_ components: ArraySlice<QueryKeyPath.Component>, table: TableInfo, alias: String)
        throws(QueryError) -> Path
    {
        guard let first = components.first else {
            return .scalar(sql: "\(alias).rowid", property: nil, isElement: false)
        }
        let rest = components.dropFirst()
        if case .property(let name) = first, let variable = variables[name] {
            if let elementTable = variable.table { return try resolve(rest, table: elementTable, alias: variable.alias) }
            guard rest.isEmpty else { throw QueryError(.invalidKeyPath, "'\(name)' is a value and has no properties") }
            return .scalar(sql: "\(variable.alias).value", property: variable.element, isElement: true)
        }
        guard case .property(let name) = first else {
            throw QueryError(.invalidKeyPath, "key path must start with a property name in '\(table.className)'")
        }
        guard let (_, property) = table.property(named: name) else {
            throw QueryError(.invalidKeyPath, "property '\(table.className).\(name)' does not exist")
        }
        let column = "\(alias).\(SQL.quote(name))"
        if property.type == .linkingObjects {
            guard let origin = realm.table(named: property.objectClassName ?? ""),
                let originProperty = origin.property(named: property.linkOriginPropertyName ?? "")?.property
            else { throw QueryError(.invalidKeyPath, "invalid linking objects property '\(table.className).\(name)'") }
            let a = self.alias()
            let link = "\(a).\(SQL.quote(originProperty.name))"
            let condition = originProperty.collection == .none
                ? "\(link) = \(alias).rowid"
                : "EXISTS (SELECT 1 FROM json_each(\(link)) WHERE value = \(alias).rowid)"
            return .many(from: "(SELECT rowid, * FROM \(origin.sqlName) WHERE 1) \(a) WHERE \(condition)", alias: a,
                         table: origin, elementProperty: nil, rest: rest)
        }
        switch property.collection {
        case .none:
            if property.type == .object, let next = rest.first, case .property = next {
                guard let target = realm.table(named: property.objectClassName ?? "") else {
                    throw QueryError(.invalidKeyPath, "unknown class '\(property.objectClassName ?? "")'")
                }
                let a = self.alias()
                let inner = try resolve(rest, table: target, alias: a)
                switch inner {
                case .scalar(let sql, let p, let isElement):
                    return .scalar(sql: "(SELECT \(sql) FROM \(target.sqlName) \(a) WHERE \(a).rowid = \(column))",
                                   property: p, isElement: isElement)
                case .many(let from, let manyAlias, let t, let ep, let r):
                    return .many(from: "\(target.sqlName) \(a) JOIN \(from) AND \(a).rowid = \(column)",
                                 alias: manyAlias, table: t, elementProperty: ep, rest: r)
                }
            }
            if let next = rest.first, case .aggregate(let op) = next, op == .size || op == .count {
                return .scalar(sql: "length(\(column))", property: Property(name: name, type: .int), isElement: false)
            }
            return .scalar(sql: column, property: property, isElement: false)
        case .list, .set, .map:
            if let next = rest.first {
                switch next {
                case .aggregate(let op):
                    return try aggregate(op, column: column, property: property, rest: rest.dropFirst())
                case .mapKey(let key):
                    let path = "'$.\"" + key.replacingOccurrences(of: "'", with: "''").replacingOccurrences(of: "\"", with: "\\\"") + "\"'"
                    return .scalar(sql: "json_extract(\(column), \(path))", property: property, isElement: true)
                case .keys:
                    let a = self.alias()
                    return .many(from: "(SELECT key AS value FROM json_each(\(column))) \(a) WHERE 1", alias: a, table: nil,
                                 elementProperty: Property(name: "@keys", type: .string), rest: rest.dropFirst())
                case .values:
                    return try many(column: column, property: property, rest: rest.dropFirst())
                case .property:
                    return try many(column: column, property: property, rest: rest)
                }
            }
            return try many(column: column, property: property, rest: rest)
        }
    }

    private mutating func many(column: String, property: Property, rest: ArraySlice<QueryKeyPath.Component>)
        throws(QueryError) -> Path
    {
        let j = self.alias()
        if property.type == .object {
            guard let target = realm.table(named: property.objectClassName ?? "") else {
                throw QueryError(.invalidKeyPath, "unknown class '\(property.objectClassName ?? "")'")
            }
            let a = self.alias()
            return .many(from: "json_each(\(column)) \(j) JOIN \(target.sqlName) \(a) ON \(a).rowid = \(j).value WHERE 1",
                         alias: a, table: target, elementProperty: nil, rest: rest)
        }
        return .many(from: "json_each(\(column)) \(j) WHERE 1", alias: j, table: nil, elementProperty: property, rest: rest)
    }

    private mutating func aggregate(_ op: QueryKeyPath.Aggregate, column: String, property: Property,
                                    rest: ArraySlice<QueryKeyPath.Component>) throws(QueryError) -> Path
    {
        switch op {
        case .count, .size:
            return .scalar(sql: "(SELECT count(*) FROM json_each(\(column)))", property: Property(name: "@count", type: .int),
                           isElement: false)
        case .sum, .avg, .min, .max:
            let fn = op == .avg ? "avg" : String(op.rawValue.dropFirst())
            if property.type == .object {
                guard case .property(let name)? = rest.first, let target = realm.table(named: property.objectClassName ?? ""),
                    let (_, p) = target.property(named: name)
                else { throw QueryError(.invalidKeyPath, "\(op.rawValue) on a list of objects needs a property") }
                let j = self.alias(), a = self.alias()
                let agg = op == .sum ? "coalesce(sum(\(a).\(SQL.quote(name))), 0)" : "\(fn)(\(a).\(SQL.quote(name)))"
                return .scalar(sql: "(SELECT \(agg) FROM json_each(\(column)) \(j) JOIN \(target.sqlName) \(a) ON \(a).rowid = \(j).value)",
                               property: op == .avg ? Property(name: name, type: .double) : p, isElement: false)
            }
            let j = self.alias()
            let agg = op == .sum ? "coalesce(sum(\(j).value), 0)" : "\(fn)(\(j).value)"
            var p = property
            p.collection = .none
            if op == .avg { p.type = .double }
            return .scalar(sql: "(SELECT \(agg) FROM json_each(\(column)) \(j))", property: p, isElement: true)
        }
    }

    // MARK: Comparisons

    private mutating func comparison(_ c: QueryPredicate.Comparison, table: TableInfo, alias: String) throws(QueryError)
        -> String
    {
        // Normalise to keyPath op value.
        var c = c
        if case .subquery = c.rhs, case .value = c.lhs {
            swap(&c.lhs, &c.rhs)
            c.op = Self.flipped(c.op)
        }
        if case .subquery(let subquery) = c.lhs {
            let count = try subqueryCount(subquery, table: table, alias: alias)
            return try scalarComparison(count, property: Property(name: "@count", type: .int), isElement: false, c)
        }
        if case .keyPath = c.lhs {} else if case .keyPath = c.rhs {
            swap(&c.lhs, &c.rhs)
            c.op = Self.flipped(c.op)
        }
        guard case .keyPath(let keyPath) = c.lhs else {
            // constant op constant, or value IN keyPath (handled above by swap for IN? no: IN is not symmetric)
            throw QueryError(.invalidKeyPath, "a comparison needs a key path on one side")
        }
        let path = try resolve(keyPath.components[...], table: table, alias: alias)
        return try compare(path, c, quantifier: c.quantifier ?? .any)
    }

    private mutating func compare(_ path: Path, _ c: QueryPredicate.Comparison, quantifier: Quantifier) throws(QueryError)
        -> String
    {
        switch path {
        case .scalar(let sql, let property, let isElement):
            return try scalarComparison(sql, property: property, isElement: isElement, c)
        case .many(let from, let a, let t, let elementProperty, let rest):
            let inner: String
            if let elementProperty {
                inner = try scalarComparison("\(a).value", property: elementProperty, isElement: true, c)
            } else if let t {
                let resolved = try resolve(rest, table: t, alias: a)
                inner = try compare(resolved, c, quantifier: .any)
            } else {
                throw QueryError(.invalidKeyPath, "invalid key path")
            }
            switch quantifier {
            case .any: return "EXISTS (SELECT 1 FROM \(from) AND \(inner))"
            case .all: return "NOT EXISTS (SELECT 1 FROM \(from) AND NOT (\(inner)))"
            case .none: return "NOT EXISTS (SELECT 1 FROM \(from) AND \(inner))"
            }
        }
    }

    private mutating func scalarComparison(_ lhs: String, property: Property?, isElement: Bool,
                                           _ c: QueryPredicate.Comparison) throws(QueryError) -> String
    {
        let type = property?.type ?? .int
        func value(_ operand: QueryOperand) throws(QueryError) -> _StoredValue {
            switch operand {
            case .value(let v): return Self.stored(v)
            case .argument(let i):
                guard i < arguments.count else {
                    throw QueryError(.unknownArgument,
                        "request for argument at index \(i) but only \(arguments.count) argument\(arguments.count == 1 ? " is" : "s are") provided")
                }
                guard let s = ValueConversion.stored(arguments[i], realm: realm) else {
                    throw QueryError(.invalidArgument, "unsupported argument type '\(Swift.type(of: arguments[i]))'")
                }
                return s
            case .keyPath: throw QueryError(.typeMismatch, "comparing two key paths is not supported yet")
            case .list: throw QueryError(.invalidArgument, "a list is not a single value")
            case .subquery: throw QueryError(.typeMismatch, "SUBQUERY is not supported in local queries yet")
            }
        }
        func encode(_ v: _StoredValue) throws(QueryError) -> SQLiteValue {
            if v.isNull { return .null }
            if case .object(let o) = v {
                guard let row = o._row else { throw QueryError(.invalidArgument, "an unmanaged object can't be used in a query") }
                return .integer(row.rowid)
            }
            if type == .mixed { return try encodeMixed(v) }
            guard let converted = RealmInstance.convert(v, to: type) ?? Self.loose(v, type) else {
                throw QueryError(.typeMismatch,
                    "Unsupported comparison between type '\(property?.typeDescription ?? type.rawValue)' and type '\(v.typeName)'")
            }
            if isElement {
                return Self.sqlite(ValueCoding.jsonElement(converted, type: type, link: { _ in nil }))
            }
            return ValueCoding.column(converted)
        }
        func list(_ operand: QueryOperand) throws(QueryError) -> [_StoredValue] {
            switch operand {
            case .list(let items):
                var out: [_StoredValue] = []
                for item in items { out.append(try value(item)) }
                return out
            case .argument(let i):
                guard i < arguments.count else { throw QueryError(.unknownArgument, "request for argument at index \(i) but only \(arguments.count) arguments are provided") }
                if let array = arguments[i] as? [Any] {
                    return array.compactMap { ValueConversion.stored($0, realm: realm) }
                }
                return [try value(operand)]
            case .value(.array(let items)): return items.map(Self.stored)
            default: return [try value(operand)]
            }
        }
        let collate = type == .decimal128 ? " COLLATE \(Decimal128Collation.name)" : ""
        let folded = !c.options.isEmpty && (type == .string || type == .mixed)
        let opts = c.options.rawValue
        func side(_ sql: String) -> String { folded ? "outpost_fold(\(sql), \(opts))" : sql }
        switch c.op {
        case .in:
            let items = try list(c.rhs)
            if items.isEmpty { return "0" }
            var ps: [String] = []
            for item in items { ps.append(side(param(try encode(item)))) }
            return "\(side(lhs))\(collate) IN (\(ps.joined(separator: ", ")))"
        case .between:
            let items = try list(c.rhs)
            guard items.count == 2 else { throw QueryError(.invalidArgument, "BETWEEN needs a list of two values") }
            let lo = param(try encode(items[0])), hi = param(try encode(items[1]))
            return "(\(lhs)\(collate) >= \(lo) AND \(lhs)\(collate) <= \(hi))"
        case .beginsWith, .endsWith, .contains, .like:
            let v = try value(c.rhs)
            guard case .string(let s) = v else {
                if case .null = v { return "0" }
                throw QueryError(.typeMismatch, "Unsupported comparison operator '\(c.op.rawValue)' for type '\(v.typeName)'")
            }
            let l = side(lhs)
            switch c.op {
            case .beginsWith:
                let p1 = side(param(.text(s))), p2 = side(param(.text(s)))
                return "(\(l) IS NOT NULL AND substr(\(l), 1, length(\(p1))) = \(p2))"
            case .endsWith:
                let p1 = side(param(.text(s))), p2 = side(param(.text(s))), p3 = side(param(.text(s)))
                return "(\(l) IS NOT NULL AND length(\(l)) >= length(\(p1)) AND "
                    + "substr(\(l), length(\(l)) - length(\(p2)) + 1) = \(p3))"
            case .contains:
                return "(\(l) IS NOT NULL AND instr(\(l), \(side(param(.text(s))))) > 0)"
            default:
                // LIKE: '*' and '?' wildcards become GLOB, with GLOB's own '[' escaped.
                let glob = s.replacingOccurrences(of: "[", with: "[[]")
                return "(\(l) GLOB \(side(param(.text(glob)))))"
            }
        default:
            let v = try value(c.rhs)
            let encoded = try encode(v)
            let p = side(param(encoded))
            let l = side(lhs)
            switch c.op {
            case .equal: return "\(l)\(collate) IS \(p)"
            case .notEqual: return "\(l)\(collate) IS NOT \(p)"
            case .lessThan: return "\(l)\(collate) < \(p)"
            case .lessThanOrEqual: return "\(l)\(collate) <= \(p)"
            case .greaterThan: return "\(l)\(collate) > \(p)"
            case .greaterThanOrEqual: return "\(l)\(collate) >= \(p)"
            default: throw QueryError(.syntax, "unsupported operator \(c.op.rawValue)")
            }
        }
    }

    private mutating func encodeMixed(_ v: _StoredValue) throws(QueryError) -> SQLiteValue {
        // Mixed columns hold tagged JSON; compare against the same text.
        let json = ValueCoding.mixed(v) { _ in nil }
        switch json {
        case .int(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .bool(let b): return .integer(b ? 1 : 0)
        default: return .text(json.text)
        }
    }

    static func sqlite(_ json: JSONValue) -> SQLiteValue {
        switch json {
        case .null: .null
        case .bool(let b): .integer(b ? 1 : 0)
        case .int(let i): .integer(i)
        case .double(let d): .real(d)
        case .string(let s): .text(s)
        default: .text(json.text)
        }
    }

    /// Lenient conversions for comparisons (numbers against any numeric type).
    static func loose(_ v: _StoredValue, _ type: PropertyType) -> _StoredValue? {
        switch (type, v) {
        case (.int, .double(let d)): return .double(d)
        case (.int, .float(let f)): return .double(Double(f))
        case (.int, .decimal128(let d)): return .double(d.doubleValue)
        case (.double, .decimal128(let d)), (.float, .decimal128(let d)): return .double(d.doubleValue)
        default: return nil
        }
    }

    static func stored(_ v: Value) -> _StoredValue {
        switch v {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .float(let f): .float(f)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .data(let d): .data(d)
        case .date(let d): .date(d)
        case .objectId(let o): .objectId(o)
        case .decimal128(let d): .decimal128(d)
        case .uuid(let u): .uuid(u)
        case .array(let a): .list(a.map(stored))
        case .document(let d): .dictionary(d.fields.mapValues(stored))
        case .link: .null
        }
    }

    static func flipped(_ op: ComparisonOperator) -> ComparisonOperator {
        switch op {
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        default: op
        }
    }

    // MARK: Subqueries

    /// `SUBQUERY(collection, $x, predicate).@count` as a correlated `count(*)`; inside the
    /// predicate, key paths starting with `$x` refer to the element.
    private mutating func subqueryCount(_ subquery: QuerySubquery, table: TableInfo, alias: String) throws(QueryError)
        -> String
    {
        let path = try resolve(subquery.collection.components[...], table: table, alias: alias)
        guard case .many(let from, let elementAlias, let elementTable, let element, let rest) = path, rest.isEmpty else {
            throw QueryError(.invalidKeyPath, "SUBQUERY needs a collection key path, not '\(subquery.collection)'")
        }
        let saved = variables[subquery.variable]
        variables[subquery.variable] = (elementAlias, element == nil ? elementTable : nil, element)
        defer { variables[subquery.variable] = saved }
        let inner = try predicate(subquery.predicate, table: table, alias: alias)
        return "(SELECT count(*) FROM \(from) AND \(inner))"
    }

    // MARK: Sorting

    mutating func orderTerm(_ keyPath: QueryKeyPath, ascending: Bool, table: TableInfo, alias: String) throws(QueryError)
        -> String
    {
        let path = try resolve(keyPath.components[...], table: table, alias: alias)
        guard case .scalar(let sql, let property, _) = path else {
            throw QueryError(.invalidKeyPath, "Cannot sort on key path '\(keyPath)': sorting on collections is not supported")
        }
        let collate = property?.type == .decimal128 ? " COLLATE \(Decimal128Collation.name)" : ""
        return "\(sql)\(collate) \(ascending ? "ASC" : "DESC")"
    }

    mutating func expression(_ keyPath: QueryKeyPath, table: TableInfo, alias: String) throws(QueryError) -> (String, Property?) {
        let path = try resolve(keyPath.components[...], table: table, alias: alias)
        guard case .scalar(let sql, let property, _) = path else {
            throw QueryError(.invalidKeyPath, "'\(keyPath)' is not a single value")
        }
        return (sql, property)
    }
}
