import Foundation
import OutpostCore

extension QuerySQL {
    /// A compiled comparison operand.
    private enum Side {
        case path(Path)
        case constant(_StoredValue)
        case list([_StoredValue])
    }

    mutating func comparison(_ c: QueryPredicate.Comparison, table: TableInfo, alias: String) throws(QueryError) -> String {
        if let shape = try geoShape(c) { return try geoWithin(c.lhs, shape, table: table, alias: alias) }
        let lhs = try side(c.lhs, table: table, alias: alias)
        let rhs = try side(c.rhs, table: table, alias: alias)
        return try compare(lhs, c.op, rhs, options: c.options, quantifier: c.quantifier ?? .any)
    }

    private mutating func side(_ operand: QueryOperand, table: TableInfo, alias: String) throws(QueryError) -> Side {
        switch operand {
        case .keyPath(let keyPath): return .path(try resolve(keyPath, table: table, alias: alias))
        case .value(.array(let items)): return .list(items.map { _StoredValue($0) })
        case .value(let value): return .constant(_StoredValue(value))
        case .argument(let index):
            let value = try argument(index)
            // A list in an AnyRealmValue is one value (a nested collection); any other array a list of values.
            if case .list(let items) = value, !(arguments[index] is AnyRealmValue) { return .list(items) }
            return .constant(value)
        case .list(let operands):
            var items: [_StoredValue] = []
            for operand in operands {
                switch operand {
                case .value(let value): items.append(_StoredValue(value))
                case .argument(let index): items.append(try argument(index))
                default: throw QueryError(.invalidArgument, "a list may only hold values and arguments")
                }
            }
            return .list(items)
        case .subquery(let subquery): return .path(.term(try self.subquery(subquery, table: table, alias: alias)))
        case .geo: throw QueryError(.invalidArgument, "a geospatial shape can only be on the right of GEOWITHIN")
        }
    }

    /// Argument `index` as a stored value (an array argument becomes `.list`).
    private func argument(_ index: Int) throws(QueryError) -> _StoredValue {
        guard index < arguments.count else {
            throw QueryError(.unknownArgument,
                "request for argument at index \(index) but only \(arguments.count) argument\(arguments.count == 1 ? " is" : "s are") provided")
        }
        let value = arguments[index]
        // A Realm collection (`IN %@` with `Results`, a `List`…) is its elements, as in Realm.
        if let array = ValueConversion.sequenceElements(value) {
            var items: [_StoredValue] = []
            for element in array {
                guard let item = ValueConversion.stored(element, realm: realm) else {
                    throw QueryError(.invalidArgument, "unsupported argument type '\(type(of: element))' in argument \(index)")
                }
                items.append(item)
            }
            return .list(items)
        }
        guard let stored = ValueConversion.stored(value, realm: realm) else {
            throw QueryError(.invalidArgument, "unsupported argument type '\(type(of: value))' for argument \(index)")
        }
        return stored
    }

    // MARK: Quantifiers and to-many sides

    private mutating func compare(_ lhs: Side, _ op: ComparisonOperator, _ rhs: Side, options: StringOptions,
                                  quantifier: Quantifier) throws(QueryError) -> String
    {
        if case .path(.many(let from, let element)) = lhs {
            // ALL over nested collections means every element of every one; NONE means not ANY.
            let inner = try compare(.path(element), op, rhs, options: options, quantifier: quantifier == .all ? .all : .any)
            switch quantifier {
            case .any: return "EXISTS (SELECT 1 FROM \(from) AND \(inner))"
            case .all: return "NOT EXISTS (SELECT 1 FROM \(from) AND NOT (\(inner)))"
            case .none: return "NOT EXISTS (SELECT 1 FROM \(from) AND \(inner))"
            }
        }
        if case .path(.many(let from, let element)) = rhs {
            // A to-many right side matches if any of its elements does (`"x" IN tags`).
            let inner = try compare(lhs, op == .in ? .equal : op, .path(element), options: options, quantifier: .any)
            let exists = "EXISTS (SELECT 1 FROM \(from) AND \(inner))"
            return quantifier == .none ? "NOT \(exists)" : exists
        }
        let condition = try single(lhs, op, rhs, options: options)
        return quantifier == .none ? "NOT (\(condition))" : condition
    }

    /// A comparison where neither side is to-many.
    private mutating func single(_ lhs: Side, _ op: ComparisonOperator, _ rhs: Side, options: StringOptions)
        throws(QueryError) -> String
    {
        switch (lhs, rhs) {
        case (.path(let l), .path(let r)):
            let (a, b) = (term(l), term(r))
            guard Self.comparable(a, b) else { throw Self.mismatch(a, Self.typeName(b)) }
            return try scalar(a, op == .in ? .equal : op, b, options: options)
        case (.path(let l), .constant(let v)):
            if op == .between { throw QueryError(.invalidArgument, "BETWEEN expects a list of two values") }
            let (a, b) = try constant(v, against: term(l), op: op, options: options)
            return try scalar(a, op == .in ? .equal : op, b, options: options)
        case (.constant(let v), .path(let r)):
            let (b, a) = try constant(v, against: term(r), op: op, options: options)
            return try scalar(a, op == .in ? .equal : op, b, options: options)
        case (.path(let l), .list(let items)):
            let left = term(l)
            if op == .between {
                guard items.count == 2 else {
                    throw QueryError(.invalidArgument, "BETWEEN expects two values, got \(items.count)")
                }
                let (low, lowTerm) = try constant(items[0], against: left, op: .greaterThanOrEqual)
                let (high, highTerm) = try constant(items[1], against: left, op: .lessThanOrEqual)
                return "(" + (try scalar(low, .greaterThanOrEqual, lowTerm, options: []))
                    + " AND " + (try scalar(high, .lessThanOrEqual, highTerm, options: [])) + ")"
            }
            guard !items.isEmpty else { return "0" }
            var parts: [String] = []
            for item in items {
                let (a, b) = try constant(item, against: left, op: op, options: options)
                parts.append(try scalar(a, op == .in ? .equal : op, b, options: options))
            }
            return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " OR ") + ")"
        default:
            throw QueryError(.invalidKeyPath, "a comparison needs a key path on one side")
        }
    }

    private func term(_ path: Path) -> Term {
        switch path {
        case .term(let term): term
        case .row(let table, let alias): Term(sql: "\(alias).rowid", type: .object, objectClassName: table.className)
        case .many: preconditionFailure("to-many paths are quantified before")
        }
    }

    // MARK: Constants

    /// A constant as a term comparable with `other`, and `other` itself (a link compared with a
    /// primary key becomes the target's primary key). Strings are folded here for `[c]`/`[d]`.
    private mutating func constant(_ value: _StoredValue, against other: Term, op: ComparisonOperator,
                                   options: StringOptions = []) throws(QueryError) -> (Term, Term)
    {
        var other = other
        if value.isNull { return (other, Term(sql: "NULL", type: other.type, isConstant: true, isNull: true)) }
        // A mixed property compared (==, !=, <, …) with a value: both in the stored form, tagged JSON text, for
        // outpost_mixed_cmp (see `scalar`); a nested list or dictionary is one such value.
        if other.type == .mixed, !other.isElement, options.isEmpty, Self.mixedComparable.contains(op) {
            return (other, Term(sql: param(.text(ValueCoding.mixed(value) { $0._row?.rowid ?? -1 }.text)),
                                type: .mixed, isConstant: true))
        }
        if case .list = value { throw QueryError(.invalidArgument, "a list is not a single value for '\(op.rawValue)'") }
        var value = value
        if case .string(let string) = value, !options.isEmpty {
            value = .string(FoldFunction.fold(string, options: options))
        }
        if op == .like, case .string(let pattern) = value {
            value = .string(pattern.replacingOccurrences(of: "[", with: "[[]"))  // GLOB's own '['
        }
        if other.type == .object {
            if case .object(let object) = value {
                // An unmanaged object equals no stored object (Realm's rule): a row id no row has.
                guard let row = object._row else {
                    return (other, Term(sql: param(.integer(-1)), type: .object, isConstant: true))
                }
                guard other.objectClassName == nil || row.table.className == other.objectClassName else {
                    throw QueryError(.typeMismatch,
                        "Unsupported comparison between type 'link<\(other.objectClassName ?? "")>' and type 'link<\(row.table.className)>'")
                }
                return (other, Term(sql: param(.integer(row.rowid)), type: .object, isConstant: true))
            }
            // A link compared with a primary key value compares the target's primary key.
            guard let target = realm.table(named: other.objectClassName ?? ""), let pk = target.primaryKeyProperty else {
                throw Self.mismatch(other, value.typeName)
            }
            let pkProperty = target.schema.allProperties[pk]
            let a = alias()
            other = Term(sql: "(SELECT \(a).\(SQL.quote(pkProperty.columnName)) FROM \(target.sqlName) \(a) WHERE \(a).rowid = \(other.sql))",
                         type: pkProperty.type)
        }

        if other.type == .mixed {
            // An element of a collection of mixed values, as json_each gives it (a string as itself, a number as a
            // number), or a string operator on a mixed property.
            return (other, Term(sql: param(try Self.encodeMixed(value)), type: .mixed, isConstant: true))
        }
        if case .object = value { throw Self.mismatch(other, "link") }
        guard let converted = RealmInstance.convert(value, to: other.type) ?? Self.loose(value, other.type) else {
            throw Self.mismatch(other, value.typeName)
        }
        let encoded = other.isElement
            ? Self.sqlite(ValueCoding.jsonElement(converted, type: other.type, link: { _ in nil }))
            : ValueCoding.column(converted)
        var type = other.type
        if case .double = converted, other.type == .int { type = .double }
        return (other, Term(sql: param(encoded), type: type, isElement: other.isElement, isConstant: true,
                            isFolded: !options.isEmpty))
    }

    // MARK: Two single values

    /// `lhs op rhs`, never SQL NULL: equality uses `IS`; the others are false when a side is null
    /// (string operators with a null right side match a null left side, like the evaluator).
    private mutating func scalar(_ lhs: Term, _ op: ComparisonOperator, _ rhs: Term, options: StringOptions)
        throws(QueryError) -> String
    {
        if lhs.type == .mixed, rhs.type == .mixed, !lhs.isElement, !rhs.isElement, !lhs.isNull, !rhs.isNull,
            options.isEmpty, let comparison = Self.mixedComparison(lhs, op, rhs)
        {
            return comparison
        }
        let isString = lhs.type == .string || rhs.type == .string || lhs.type == .mixed
        let fold = !options.isEmpty && isString ? "outpost_fold(%@, \(options.rawValue))" : nil
        var l = lhs.sql, r = rhs.sql
        // Decimal128 is stored as text: the other numeric side is compared as text with the collation.
        let decimal = lhs.type == .decimal128 || rhs.type == .decimal128
        if decimal {
            if lhs.type != .decimal128 && !lhs.isNull { l = "CAST(\(l) AS TEXT)" }
            if rhs.type != .decimal128 && !rhs.isNull { r = "CAST(\(r) AS TEXT)" }
        }
        if let fold {
            if !lhs.isFolded { l = fold.replacingOccurrences(of: "%@", with: l) }
            if !rhs.isFolded { r = fold.replacingOccurrences(of: "%@", with: r) }
        }
        let collate = decimal ? " COLLATE \(Decimal128Collation.name)" : ""
        switch op {
        case .equal, .in: return "\(l)\(collate) IS \(r)"
        case .notEqual: return "\(l)\(collate) IS NOT \(r)"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if lhs.isNull || rhs.isNull { return Self.orderedAgainstNull(lhs, op, rhs) }
            let symbol = [.lessThan: "<", .lessThanOrEqual: "<=", .greaterThan: ">", .greaterThanOrEqual: ">="][op]!
            // A column against a constant keeps the comparison indexable; anything else is coalesced.
            if rhs.isConstant && Self.isColumn(lhs) { return "(\(l)\(collate) \(symbol) \(r) AND \(lhs.sql) IS NOT NULL)" }
            if lhs.isConstant && Self.isColumn(rhs) { return "(\(l)\(collate) \(symbol) \(r) AND \(rhs.sql) IS NOT NULL)" }
            // Two nulls are equal, so `>=` and `<=` hold between them (realm-core); one null orders against nothing.
            let bothNull = op == .lessThanOrEqual || op == .greaterThanOrEqual ? "\(lhs.sql) IS NULL AND \(rhs.sql) IS NULL" : "0"
            return "coalesce(\(l)\(collate) \(symbol) \(r), \(bothNull))"
        case .beginsWith, .endsWith, .contains, .like:
            return try stringOperator(lhs, op, rhs, l: l, r: r)
        case .between:
            throw QueryError(.invalidArgument, "BETWEEN expects a list of two values")
        case .geoWithin:
            throw QueryError(.invalidArgument, "GEOWITHIN expects geoBox(…), geoPolygon(…), geoCircle(…) or a shape argument")
        }
    }

    /// The operators `outpost_mixed_cmp` answers for mixed properties.
    private static let mixedComparable: Set<ComparisonOperator> = [
        .equal, .notEqual, .in, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
    ]

    /// Two mixed values in their stored form, compared as realm-core compares them (`outpost_mixed_cmp`: NULL when
    /// they cannot be compared, which only `!=` matches). Nil for the string operators.
    private static func mixedComparison(_ lhs: Term, _ op: ComparisonOperator, _ rhs: Term) -> String? {
        let order = "outpost_mixed_cmp(\(lhs.sql), \(rhs.sql))"
        switch op {
        case .equal, .in: return "\(order) = 0"
        case .notEqual: return "coalesce(\(order) != 0, 1)"
        case .lessThan: return "\(order) < 0"
        case .lessThanOrEqual: return "\(order) <= 0"
        case .greaterThan: return "\(order) > 0"
        case .greaterThanOrEqual: return "\(order) >= 0"
        default: return nil
        }
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` (strings and binary) and `LIKE` (strings; `*` and `?`
    /// as GLOB). `l`/`r` are the (folded) operand expressions.
    private func stringOperator(_ lhs: Term, _ op: ComparisonOperator, _ rhs: Term, l: String, r: String)
        throws(QueryError) -> String
    {
        let types: Set<PropertyType> = [.string, .data, .mixed]
        guard types.contains(lhs.type), types.contains(rhs.type), !(lhs.isElement && lhs.type == .data) else {
            throw QueryError(.typeMismatch,
                "Unsupported comparison operator '\(op.rawValue)' between type '\(Self.typeName(lhs))' and type '\(Self.typeName(rhs))'")
        }
        if rhs.isNull { return "\(lhs.sql) IS NULL" }
        let body: String
        switch op {
        // `length(r) = 0` first: SQLite's substr() of an empty blob is NULL.
        case .beginsWith: body = "(length(\(r)) = 0 OR substr(\(l), 1, length(\(r))) = \(r))"
        case .endsWith:
            body = "(length(\(r)) = 0 OR (length(\(l)) >= length(\(r)) AND substr(\(l), length(\(l)) - length(\(r)) + 1) = \(r)))"
        case .contains: body = "instr(\(l), \(r)) > 0"
        default:
            if lhs.type == .data || rhs.type == .data { return "0" }
            // A constant pattern had GLOB's own '[' escaped already; another property's value is escaped here.
            body = rhs.isConstant ? "\(l) GLOB \(r)" : "\(l) GLOB replace(\(r), '[', '[[]')"
        }
        if rhs.isConstant { return "(\(lhs.sql) IS NOT NULL AND \(body))" }
        return "(CASE WHEN \(rhs.sql) IS NULL THEN \(lhs.sql) IS NULL ELSE coalesce(\(lhs.sql) IS NOT NULL AND \(body), 0) END)"
    }

    // MARK: Types

    private static let numeric: Set<PropertyType> = [.int, .float, .double, .decimal128]

    private static func comparable(_ a: Term, _ b: Term) -> Bool {
        if a.type == .mixed || b.type == .mixed { return true }
        if numeric.contains(a.type) && numeric.contains(b.type) { return true }
        guard a.type == b.type else { return false }
        return a.type != .object || a.objectClassName == nil || b.objectClassName == nil
            || a.objectClassName == b.objectClassName
    }

    /// A plain `alias."column"` or `alias.value` (cheap to repeat).
    private static func isColumn(_ term: Term) -> Bool {
        !term.sql.contains("(") && !term.sql.contains(" ")
    }

    private static func typeName(_ term: Term) -> String {
        term.type == .object ? "link" : term.type.realmName
    }

    /// Realm's wording: `Unsupported comparison between type 'int' and type 'string'`.
    private static func mismatch(_ left: Term, _ rightTypeName: String) -> QueryError {
        QueryError(.typeMismatch, "Unsupported comparison between type '\(typeName(left))' and type '\(rightTypeName)'")
    }

    /// Hot path (query binding): a stored value as the parameter a mixed column is compared with, straight to the
    /// column's tagged JSON (``ValueCoding``), as rows store it; a `Value` in between would be a detour.
    private static func encodeMixed(_ v: _StoredValue) throws(QueryError) -> SQLiteValue {
        // Mixed columns hold tagged JSON; compare against the same text.
        let json = ValueCoding.mixed(v) { $0._row?.rowid ?? -1 }  // an unmanaged object: a row no link names
        switch json {
        case .int(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .bool(let b): return .integer(b ? 1 : 0)
        default: return .text(json.text)
        }
    }

    /// Hot path (query binding): a collection element's stored JSON as the parameter `json_each` values are compared
    /// with (numbers, strings and booleans as themselves); not through `Value`, as the element is in stored form.
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

    /// An ordering comparison with `nil`: as realm-core, strings order null before every string (`name > nil` is
    /// every non-null name, `name >= nil` every object); other types never order against null.
    private static func orderedAgainstNull(_ lhs: Term, _ op: ComparisonOperator, _ rhs: Term) -> String {
        // A null constant takes the type of what it is compared with.
        guard lhs.type == .string, rhs.type == .string, !lhs.isElement, !rhs.isElement else { return "0" }
        switch (lhs.isNull, rhs.isNull, op) {
        case (true, true, .greaterThanOrEqual), (true, true, .lessThanOrEqual): return "1"
        case (true, true, _): return "0"
        case (false, true, .greaterThan): return "(\(lhs.sql) IS NOT NULL)"
        case (false, true, .greaterThanOrEqual): return "1"
        case (false, true, .lessThan): return "0"
        case (false, true, _): return "(\(lhs.sql) IS NULL)"
        case (true, false, .lessThan): return "(\(rhs.sql) IS NOT NULL)"
        case (true, false, .lessThanOrEqual): return "1"
        case (true, false, .greaterThan): return "0"
        case (true, false, _): return "(\(rhs.sql) IS NULL)"
        case (false, false, _): return "0"
        }
    }
}
