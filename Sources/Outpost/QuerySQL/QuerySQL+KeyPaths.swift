import Foundation
import OutpostCore

extension QuerySQL {
    /// A typed SQL value expression.
    struct Term {
        var sql: String
        var type: PropertyType
        /// A JSON value (collection element, map value): constants compare in their JSON encoding.
        var isElement = false
        /// The target class of a link.
        var objectClassName: String?
        /// A literal or argument (a placeholder), not a key path.
        var isConstant = false
        /// The constant `NULL`.
        var isNull = false
        /// Already folded for `[c]`/`[d]` (a constant folded in Swift).
        var isFolded = false
    }

    /// What a key path resolves to.
    indirect enum Path {
        /// One value per object.
        case term(Term)
        /// The rows of `from` (a `FROM … WHERE …` clause that `AND …` may extend), each giving `element`.
        case many(from: String, element: Path)
        /// An object's own row: the element of a list of objects, or a SUBQUERY variable.
        case row(TableInfo, alias: String)
    }

    /// What a SUBQUERY variable stands for.
    enum Binding {
        case row(TableInfo, alias: String)
        case term(Term)
    }

    /// Resolves a key path on the row `alias` of `table` (or on a SUBQUERY variable).
    mutating func resolve(_ keyPath: QueryKeyPath, table: TableInfo, alias: String) throws(QueryError) -> Path {
        let keyPath = try boundSubscripts(keyPath)
        var components = keyPath.components[...]
        if case .property(let name)? = components.first, name.hasPrefix("$") {
            guard let binding = variables[name] else {
                throw QueryError(.invalidKeyPath, "unknown subquery variable '\(name)'")
            }
            components = components.dropFirst()
            switch binding {
            case .row(let t, let a):
                return try resolve(components, table: t, alias: a)
            case .term(let term):
                if components.isEmpty { return .term(term) }
                if components.count == 1, case .aggregate(let op) = components.first!, op == .size || op == .count {
                    return .term(try size(of: term, keyPath: keyPath))
                }
                throw QueryError(.invalidKeyPath, "'\(name)' is a \(term.type.realmName), not an object: '\(keyPath)'")
            }
        }
        return try resolve(components, table: table, alias: alias)
    }

    private mutating func resolve(_ components: ArraySlice<QueryKeyPath.Component>, table: TableInfo, alias: String)
        throws(QueryError) -> Path
    {
        guard let first = components.first else { return .row(table, alias: alias) }
        guard case .property(let name) = first else {
            throw QueryError(.invalidKeyPath, "key path must start with a property name in '\(table.className)'")
        }
        guard let (_, property) = table.property(named: name) else {
            // The token names the missing property (`Class.name`), for the texts of sorts and distincts.
            throw QueryError(.invalidKeyPath, "'\(table.className)' has no property '\(name)'", token: "\(table.className).\(name)")
        }
        let rest = components.dropFirst()
        let column = "\(alias).\(SQL.quote(property.columnName))"
        if property.type == .linkingObjects {
            return try linkingObjects(property, table: table, alias: alias, rest: rest)
        }
        switch property.collection {
        case .none: return try single(property, column: column, rest: rest, owner: table)
        case .list, .set:
            if case .aggregate(let op)? = rest.first {
                return .term(try aggregate(op, over: try elements(property, json: column, rest: rest.dropFirst())))
            }
            return try elements(property, json: column, rest: rest)
        case .map: return try map(property, column: column, rest: rest)
        }
    }

    /// A single-valued property: a column, or a hop through a link.
    private mutating func single(_ property: Property, column: String, rest: ArraySlice<QueryKeyPath.Component>,
                                 owner: TableInfo) throws(QueryError) -> Path
    {
        if property.type == .object {
            let target = try self.target(of: property)
            guard !rest.isEmpty else {
                return .term(Term(sql: column, type: .object, objectClassName: target.className))
            }
            return try follow(column, to: target, rest: rest)
        }
        let term = Term(sql: column, type: property.type)
        guard let next = rest.first else { return .term(term) }
        if property.type == .mixed, Self.isMixedSubscript(next) {
            return try mixedPath(column, rest: rest, keyPath: QueryKeyPath([.property(property.name)] + Array(rest)))
        }
        if rest.count == 1, case .aggregate(let op) = next, op == .size || op == .count {
            return .term(try size(of: term, keyPath: QueryKeyPath([.property(property.name)] + Array(rest))))
        }
        throw QueryError(.invalidKeyPath,
            "'\(owner.className).\(property.name)' of type '\(property.typeDescription)' has no key path '\(QueryKeyPath(Array(rest)))'")
    }

    /// The rest of a key path on the object a link (`rowid` expression) points at.
    private mutating func follow(_ rowid: String, to target: TableInfo, rest: ArraySlice<QueryKeyPath.Component>)
        throws(QueryError) -> Path
    {
        let a = alias()
        switch try resolve(rest, table: target, alias: a) {
        case .term(var term):
            term.sql = "(SELECT \(term.sql) FROM \(target.sqlName) \(a) WHERE \(a).rowid = \(rowid))"
            return .term(term)
        case .many(let from, let element):
            return .many(from: "\(target.sqlName) \(a) JOIN \(from) AND \(a).rowid = \(rowid)", element: element)
        case .row:
            return .term(Term(sql: rowid, type: .object, objectClassName: target.className))
        }
    }

    /// The elements of a list or set (a JSON array), or the values of a map (a JSON object).
    private mutating func elements(_ property: Property, json: String, rest: ArraySlice<QueryKeyPath.Component>)
        throws(QueryError) -> Path
    {
        let j = alias()
        if property.type == .object {
            let target = try self.target(of: property)
            let a = alias()
            return .many(from: "json_each(\(json)) \(j) JOIN \(target.sqlName) \(a) ON \(a).rowid = \(j).value WHERE 1",
                         element: try resolve(rest, table: target, alias: a))
        }
        let element = Term(sql: "\(j).value", type: property.type, isElement: true)
        if rest.isEmpty { return .many(from: "json_each(\(json)) \(j) WHERE 1", element: .term(element)) }
        if rest.count == 1, case .aggregate(let op) = rest.first!, op == .size || op == .count {
            return .many(from: "json_each(\(json)) \(j) WHERE 1",
                         element: .term(try size(of: element, keyPath: QueryKeyPath([.property(property.name)] + Array(rest)))))
        }
        throw QueryError(.invalidKeyPath,
            "'\(property.name)' of type '\(property.typeDescription)' has no key path '\(QueryKeyPath(Array(rest)))'")
    }

    /// `map["key"]`, `map.key`, `map.@keys`, `map.@values`, `map.@count`, … and `map` (its values).
    private mutating func map(_ property: Property, column: String, rest: ArraySlice<QueryKeyPath.Component>)
        throws(QueryError) -> Path
    {
        guard let next = rest.first else { return try elements(property, json: column, rest: []) }
        switch next {
        case .mapKey(let key), .property(let key):
            let path = param(.text("$.\"" + key.replacingOccurrences(of: "\"", with: "\\\"") + "\""))
            let value = "json_extract(\(column), \(path))"
            if property.type == .object, rest.count > 1 {
                return try follow(value, to: try target(of: property), rest: rest.dropFirst())
            }
            let term = Term(sql: value, type: property.type, isElement: true,
                            objectClassName: property.type == .object ? property.objectClassName : nil)
            if rest.count == 1 { return .term(term) }
            if rest.count == 2, case .aggregate(let op) = rest.last!, op == .size || op == .count {
                return .term(try size(of: term, keyPath: QueryKeyPath([.property(property.name)] + Array(rest))))
            }
            throw QueryError(.invalidKeyPath, "invalid key path '\(QueryKeyPath([.property(property.name)] + Array(rest)))'")
        case .keys:
            let j = alias()
            let keys = Path.many(from: "json_each(\(column)) \(j) WHERE 1", element: .term(Term(sql: "\(j).key", type: .string)))
            if case .aggregate(let op)? = rest.dropFirst().first { return .term(try aggregate(op, over: keys)) }
            guard rest.count == 1 else { throw QueryError(.invalidKeyPath, "@keys must end the key path") }
            return keys
        case .values:
            if case .aggregate(let op)? = rest.dropFirst().first {
                return .term(try aggregate(op, over: try elements(property, json: column, rest: rest.dropFirst(2))))
            }
            return try elements(property, json: column, rest: rest.dropFirst())
        case .aggregate(let op):
            return .term(try aggregate(op, over: try elements(property, json: column, rest: rest.dropFirst())))
        case .index, .all, .argumentSubscript:
            throw QueryError(.invalidKeyPath,
                "invalid key path '\(QueryKeyPath([.property(property.name)] + Array(rest)))': a map takes a string key")
        }
    }

    /// `[%@]` / `[$0]` with its argument: an integer is an index, a string a key.
    private func boundSubscripts(_ keyPath: QueryKeyPath) throws(QueryError) -> QueryKeyPath {
        guard keyPath.components.contains(where: { if case .argumentSubscript = $0 { true } else { false } }) else {
            return keyPath
        }
        var bound: [QueryKeyPath.Component] = []
        for component in keyPath.components {
            guard case .argumentSubscript(let index) = component else {
                bound.append(component)
                continue
            }
            guard arguments.indices.contains(index) else {
                throw QueryError(.unknownArgument,
                    "request for argument at index \(index) but only \(arguments.count) argument\(arguments.count == 1 ? " is" : "s are") provided")
            }
            switch arguments[index] {
            case let key as String: bound.append(.mapKey(key))
            case let position as any BinaryInteger: bound.append(.index(Int(position)))
            case let value:
                throw QueryError(.invalidArgument,
                    "a subscript in '\(keyPath)' takes an integer index or a string key, not '\(type(of: value))'")
            }
        }
        return QueryKeyPath(bound)
    }

    private static func isMixedSubscript(_ component: QueryKeyPath.Component) -> Bool {
        switch component {
        case .index, .mapKey, .all: true
        default: false
        }
    }

    /// `anyCol[0]`, `anyCol["key"]`, `anyCol[*]` to any depth: the values at that place inside a mixed property's
    /// stored JSON (a nested dictionary is `{"$map": …}`), each in the stored form `outpost_mixed_cmp` compares. A
    /// path that leads nowhere (past the end, a key a dictionary lacks, into a value that is no collection) gives no
    /// value, so it matches nothing, not even `!=`, as in Realm.
    private mutating func mixedPath(_ column: String, rest: ArraySlice<QueryKeyPath.Component>, keyPath: QueryKeyPath)
        throws(QueryError) -> Path
    {
        var sources: [String] = [], conditions: [String] = []
        var root = column  // the JSON the path is in
        var base: String?  // the path, within `root`, of the element the last `[*]` stands for (`j.fullkey`)
        var suffix = "$"
        func pathSQL(_ suffix: String) -> String {
            guard let base else { return param(.text(suffix)) }
            return suffix.isEmpty ? base : "(\(base) || \(param(.text(suffix))))"
        }
        for component in rest {
            switch component {
            case .index(let position):
                guard position >= 0 else { throw QueryError(.invalidKeyPath, "invalid key path '\(keyPath)': a negative index") }
                suffix += "[\(position)]"
            case .mapKey(let key) where !key.contains("\""):
                suffix += ".\"$map\".\"\(key)\""
            case .mapKey(let key):
                // A JSON path cannot quote a '"': the entry is found by its key, and the path goes on in its value.
                let j = alias()
                sources.append("json_each(\(root), \(pathSQL(suffix + ".\"$map\""))) \(j)")
                conditions.append("\(j).key = \(param(.text(key)))")
                root = "(CASE \(j).type WHEN 'text' THEN json_quote(\(j).value) WHEN 'null' THEN 'null' "
                    + "WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE \(j).value END)"
                base = nil
                suffix = "$"
            case .all:
                let list = pathSQL(suffix), dictionary = pathSQL(suffix + ".\"$map\"")
                let j = alias()
                sources.append("json_each(\(root), CASE json_type(\(root), \(list)) WHEN 'array' THEN \(list) ELSE \(dictionary) END) \(j)")
                base = "\(j).fullkey"
                suffix = ""
            default:
                throw QueryError(.invalidKeyPath, "invalid key path '\(keyPath)': a mixed value takes only subscripts")
            }
        }
        let value = "(\(root) -> \(pathSQL(suffix)))"
        if sources.isEmpty { sources.append("(SELECT 1) \(alias())") }
        // A JSON null inside is a null value; SQL NULL from `->` is no value at all.
        conditions.append("\(value) IS NOT NULL")
        return .many(from: sources.joined(separator: " JOIN ") + " WHERE " + conditions.joined(separator: " AND "),
                     element: .term(Term(sql: "nullif(\(value), 'null')", type: .mixed)))
    }

    /// The objects whose `originProperty` links to this row.
    private mutating func linkingObjects(_ property: Property, table: TableInfo, alias: String,
                                         rest: ArraySlice<QueryKeyPath.Component>) throws(QueryError) -> Path
    {
        guard let origin = realm.table(named: property.objectClassName ?? ""),
            let originProperty = origin.property(named: property.linkOriginPropertyName ?? "")?.property
        else { throw QueryError(.invalidKeyPath, "invalid linking objects property '\(table.className).\(property.name)'") }
        let a = self.alias()
        let link = "\(a).\(SQL.quote(originProperty.columnName))"
        let condition = originProperty.collection == .none
            ? "\(link) = \(alias).rowid"
            : "EXISTS (SELECT 1 FROM json_each(\(link)) WHERE value = \(alias).rowid)"
        let from = "\(origin.sqlName) \(a) WHERE \(condition)"
        if case .aggregate(let op)? = rest.first {
            return .term(try aggregate(op, over: .many(from: from, element: try resolve(rest.dropFirst(), table: origin, alias: a))))
        }
        return .many(from: from, element: try resolve(rest, table: origin, alias: a))
    }

    private func target(of property: Property) throws(QueryError) -> TableInfo {
        guard let target = realm.table(named: property.objectClassName ?? "") else {
            throw QueryError(.invalidKeyPath, "unknown class '\(property.objectClassName ?? "")'")
        }
        return target
    }

    // MARK: Collection operators

    /// `@size`/`@count` of a string (UTF-8 bytes, as Realm's `StringData::size()`) or binary (bytes);
    /// null for null.
    private func size(of term: Term, keyPath: QueryKeyPath) throws(QueryError) -> Term {
        switch term.type {
        case .string: return Term(sql: "length(CAST(\(term.sql) AS BLOB))", type: .int)
        case .data where !term.isElement: return Term(sql: "length(\(term.sql))", type: .int)
        default:
            throw QueryError(.invalidKeyPath, "@size cannot be applied to '\(keyPath)' of type '\(term.type.realmName)'")
        }
    }

    /// `@count`/`@size` (number of elements), `@sum` (0 when empty), `@avg`, `@min`, `@max` (null
    /// when empty), skipping null elements like the evaluator.
    private mutating func aggregate(_ op: QueryKeyPath.Aggregate, over path: Path) throws(QueryError) -> Term {
        guard case .many(let from, let element) = path else {
            throw QueryError(.invalidKeyPath, "\(op.rawValue) needs a collection")
        }
        if op == .count || op == .size { return Term(sql: "(SELECT count(*) FROM \(from))", type: .int) }
        guard case .term(let value) = element else {
            throw QueryError(.invalidKeyPath, "\(op.rawValue) on a collection of objects needs a property, e.g. 'dogs.\(op.rawValue).age'")
        }
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal128, .mixed]
        switch op {
        case .sum, .avg:
            guard numeric.contains(value.type) else {
                throw QueryError(.invalidKeyPath, "\(op.rawValue) cannot be applied to a collection of '\(value.type.realmName)'")
            }
            if op == .avg { return Term(sql: "(SELECT avg(\(value.sql)) FROM \(from))", type: .double) }
            return Term(sql: "(SELECT coalesce(sum(\(value.sql)), 0) FROM \(from))", type: value.type == .int ? .int : .double)
        default:
            guard numeric.contains(value.type) || value.type == .date else {
                throw QueryError(.invalidKeyPath, "\(op.rawValue) cannot be applied to a collection of '\(value.type.realmName)'")
            }
            let collate = value.type == .decimal128 ? " COLLATE \(Decimal128Collation.name)" : ""
            let fn = op == .min ? "min" : "max"
            var result = value
            result.sql = "(SELECT \(fn)(\(value.sql)\(collate)) FROM \(from) AND \(value.sql) IS NOT NULL)"
            return result
        }
    }

    /// `SUBQUERY(collection, $x, predicate).@count`: a correlated count of the matching elements.
    mutating func subquery(_ subquery: QuerySubquery, table: TableInfo, alias: String) throws(QueryError) -> Term {
        guard case .many(let from, let element) = try resolve(subquery.collection, table: table, alias: alias) else {
            throw QueryError(.invalidKeyPath, "SUBQUERY needs a collection, not '\(subquery.collection)'")
        }
        let binding: Binding
        switch element {
        case .row(let t, let a): binding = .row(t, alias: a)
        case .term(let term): binding = .term(term)
        case .many: throw QueryError(.invalidKeyPath, "SUBQUERY over '\(subquery.collection)' is not supported")
        }
        let saved = variables[subquery.variable]
        variables[subquery.variable] = binding
        defer { variables[subquery.variable] = saved }
        // As in realm-core, the subquery's other key paths are the element's (an object's), not the root's.
        let scope: (TableInfo, String) = if case .row(let t, let a) = binding { (t, a) } else { (table, alias) }
        let condition = try predicate(subquery.predicate, table: scope.0, alias: scope.1)
        return Term(sql: "(SELECT count(*) FROM \(from) AND \(condition))", type: .int)
    }
}
