/// Evaluates predicates against documents, with Realm's semantics (used by the server for Flexible
/// Sync subscriptions and rules).
///
/// - Numbers compare across int, float, double and decimal128 (float against double compares as
///   float, as Realm converts a literal to the column's type).
/// - Strings compare by Unicode scalars; `[c]` folds case and `[d]` folds diacritics (Foundation's
///   `folding(options:locale:)`); `LIKE` takes `*` (any run) and `?` (one character).
/// - `nil` equals only null (a missing field is null); ordering against null is false.
/// - A comparison over a to-many key path is true if ANY element matches; `ALL` needs every element
///   (true for an empty collection) and `NONE` none. A list on the right matches if any element does.
/// - `.link` values are followed through `resolveLink`; an unresolvable link reads as null. Comparing
///   with a link compares primary keys. Embedded objects are `.document` values.
/// - `@count`/`@size` count array elements, map entries, bytes of data and UTF-8 bytes of a string
///   (as Realm does); `@sum` (0 when empty), `@avg`, `@min`, `@max` (null when empty) skip nulls.
/// - An unbound argument throws `QueryError.Kind.unknownArgument`.
public struct QueryEvaluator: Sendable {
    /// Finds the object a link points to.
    public typealias LinkResolver = @Sendable (_ className: String, _ primaryKey: Value) -> Document?

    let resolveLink: LinkResolver

    public init(resolveLink: @escaping LinkResolver = { _, _ in nil }) {
        self.resolveLink = resolveLink
    }

    /// Whether `document` satisfies `predicate`.
    public func matches(_ predicate: QueryPredicate, _ document: Document) throws(QueryError) -> Bool {
        switch predicate.node {
        case .constant(let value):
            return value
        case .and(let parts):
            for part in parts where !(try matches(part, document)) { return false }
            return true
        case .or(let parts):
            for part in parts where try matches(part, document) { return true }
            return false
        case .not(let inner):
            return !(try matches(inner, document))
        case .comparison(let comparison):
            return try evaluate(comparison, document)
        }
    }

    /// Whether `document` satisfies the query's predicate (suffixes do not filter single documents).
    public func matches(_ query: ParsedQuery, _ document: Document) throws(QueryError) -> Bool {
        try matches(query.predicate, document)
    }

    private func evaluate(_ comparison: QueryPredicate.Comparison, _ document: Document) throws(QueryError) -> Bool {
        if let ordered = try orderedAgainstNull(comparison, document) { return ordered }
        if comparison.op == .geoWithin {
            guard case .geo(let shape) = comparison.rhs else {
                throw QueryError(.invalidArgument, "GEOWITHIN expects geoBox(…), geoPolygon(…) or geoCircle(…)")
            }
            let region = try shape.region()
            return try values(of: comparison.lhs, in: document).contains { value in
                guard case .document(let point) = value, case .array(let coordinates)? = point["coordinates"] else { return false }
                var type: String?
                if case .string(let t)? = point["type"] { type = t }
                return region.contains(geoJSONType: type, coordinates: coordinates.compactMap(\.geoNumber))
            }
        }
        // The usual subscription and filter shape, `field <op> constant` on a field holding one value: compared
        // directly, without the general path's value lists and closures (same answer: one value on each side).
        if comparison.quantifier == nil, comparison.op != .between, comparison.op != .in, !comparison.op.isStringOperator,
            case .keyPath(let path) = comparison.lhs, path.components.count == 1,
            case .property(let name) = path.components[0], case .value(let constant) = comparison.rhs,
            !constant.isArrayValue, let field = document[name], !field.isArrayValue
        {
            return Self.compare(field, comparison.op, constant, options: comparison.options)
        }
        if comparison.op.isStringOperator { try checkStringOperands(comparison) }
        let lhs = try values(of: comparison.lhs, in: document)
        let rhs = try values(of: comparison.rhs, in: document)
        let op = comparison.op
        let options = comparison.options
        let test: (Value) -> Bool
        switch op {
        case .between:
            guard rhs.count == 2 else {
                throw QueryError(.invalidArgument, "BETWEEN expects two values, got \(rhs.count)")
            }
            test = { value in
                guard let low = Self.order(value, rhs[0]), let high = Self.order(value, rhs[1]) else { return false }
                return low >= 0 && high <= 0
            }
        case .in:
            test = { value in rhs.contains { Self.compare(value, .equal, $0, options: options) } }
        default:
            test = { value in rhs.contains { Self.compare(value, op, $0, options: options) } }
        }
        switch comparison.quantifier ?? .any {
        case .any: return lhs.contains(where: test)
        case .all: return lhs.allSatisfy(test)
        case .none: return !lhs.contains(where: test)
        }
    }

    /// `BEGINSWITH` and friends take strings and binary data only (null matches nothing but null).
    private func checkStringOperands(_ comparison: QueryPredicate.Comparison) throws(QueryError) {
        var literals: [Value] = []
        for operand in [comparison.lhs, comparison.rhs] {
            switch operand {
            case .value(let value): literals.append(value)
            case .list(let elements):
                for case .value(let value) in elements { literals.append(value) }
            default: break
            }
        }
        for value in literals {
            switch value {
            case .string, .data, .null: continue
            default:
                throw QueryError(.typeMismatch, "\(comparison.op.rawValue) cannot compare a \(value.typeName)")
            }
        }
    }

    /// `name > nil` and the other orderings with a `nil` constant: as realm-core, a string orders after null, so
    /// `> nil` is every non-null string, `>= nil` everything, `< nil` nothing and `<= nil` the nulls; values of other
    /// types never order against null. Nil when the comparison is not one of these.
    private func orderedAgainstNull(_ comparison: QueryPredicate.Comparison, _ document: Document) throws(QueryError)
        -> Bool?
    {
        let op: ComparisonOperator
        let operand: QueryOperand
        switch (comparison.lhs, comparison.rhs, comparison.op) {
        case (_, .value(.null), .greaterThan), (_, .value(.null), .greaterThanOrEqual),
             (_, .value(.null), .lessThan), (_, .value(.null), .lessThanOrEqual):
            (op, operand) = (comparison.op, comparison.lhs)
        case (.value(.null), _, .greaterThan): (op, operand) = (.lessThan, comparison.rhs)
        case (.value(.null), _, .greaterThanOrEqual): (op, operand) = (.lessThanOrEqual, comparison.rhs)
        case (.value(.null), _, .lessThan): (op, operand) = (.greaterThan, comparison.rhs)
        case (.value(.null), _, .lessThanOrEqual): (op, operand) = (.greaterThanOrEqual, comparison.rhs)
        default: return nil
        }
        let found = try values(of: operand, in: document)
        func matches(_ value: Value) -> Bool {
            switch (value, op) {
            case (.string, .greaterThan), (.string, .greaterThanOrEqual): true
            case (.null, .greaterThanOrEqual), (.null, .lessThanOrEqual): true
            default: false
            }
        }
        // Only strings take this order; a number against nil never matches. A field holding only null has no type
        // here, so `>= nil` and `<= nil` on it answer false (the client, which knows the column's type, answers true
        // for a string column).
        let isString: (Value) -> Bool = { if case .string = $0 { true } else { false } }
        guard found.allSatisfy({ isString($0) || $0.isNull }),
              found.contains(where: isString) || op == .greaterThan || op == .lessThan
        else { return false }
        return comparison.quantifier == .all ? found.allSatisfy(matches) : found.contains(where: matches)
    }
}

private extension Value {
    var isArrayValue: Bool {
        if case .array = self { return true }
        return false
    }
}
