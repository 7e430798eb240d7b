/// Writes canonical query text: the text `QueryParser` reads back to the same tree.
///
/// The output is deterministic: keywords upper-case, `AND`/`OR` chains flattened and any nested
/// `AND`/`OR` parenthesised, `NOT (…)` always parenthesised, operators in one spelling (`==`, `!=`,
/// `<=`, `>=`, `BEGINSWITH`, …) with options as `[c]`, `[d]` or `[cd]`, quantifiers only when
/// present (`SOME` prints as `ANY`), unbound arguments as `$n`, and values in literal syntax (see
/// `print(_: Value)`). Suffixes follow in their order: `SORT(a ASC, b DESC) DISTINCT(a) LIMIT(5)`.
public enum QueryPrinter {
    /// The canonical text of a whole query, suffixes included.
    public static func print(_ query: ParsedQuery) -> String {
        var parts = [print(query.predicate)]
        for suffix in query.suffixes {
            switch suffix {
            case .sort(let keys):
                let keys = keys.map { "\($0.keyPath) \($0.ascending ? "ASC" : "DESC")" }
                parts.append("SORT(" + keys.joined(separator: ", ") + ")")
            case .distinct(let keyPaths):
                parts.append("DISTINCT(" + keyPaths.map(\.description).joined(separator: ", ") + ")")
            case .limit(let count):
                parts.append("LIMIT(\(count))")
            }
        }
        return parts.joined(separator: " ")
    }

    /// The canonical text of a predicate.
    public static func print(_ predicate: QueryPredicate) -> String {
        let predicate = simplified(predicate)
        switch predicate.node {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let parts):
            return parts.map(child).joined(separator: " AND ")
        case .or(let parts):
            return parts.map(child).joined(separator: " OR ")
        case .not(let inner):
            return "NOT (\(print(inner)))"
        case .comparison(let comparison):
            var text = comparison.quantifier.map { "\($0.rawValue) " } ?? ""
            text += print(comparison.lhs) + " " + comparison.op.rawValue
            if comparison.options.contains(.caseInsensitive) || comparison.options.contains(.diacriticInsensitive) {
                text += "["
                if comparison.options.contains(.caseInsensitive) { text += "c" }
                if comparison.options.contains(.diacriticInsensitive) { text += "d" }
                text += "]"
            }
            return text + " " + print(comparison.rhs)
        }
    }

    /// The text of one operand: a key path, a literal, `$n` or a list `{…}`.
    public static func print(_ operand: QueryOperand) -> String {
        switch operand {
        case .keyPath(let keyPath): keyPath.description
        case .value(let value): print(value)
        case .argument(let index): "$\(index)"
        case .list(let elements): "{" + elements.map(print).joined(separator: ", ") + "}"
        case .subquery(let subquery):
            "SUBQUERY(\(subquery.collection), \(subquery.variable), \(print(subquery.predicate))).@count"
        case .geo(let shape): shape.queryText
        }
    }

    /// An `AND`/`OR` operand, parenthesised when it is itself an `AND` or `OR`.
    private static func child(_ predicate: QueryPredicate) -> String {
        switch predicate.node {
        case .and, .or: "(\(print(predicate)))"
        default: print(predicate)
        }
    }

    /// The same predicate with nested `AND`s (and `OR`s) flattened, one-element chains unwrapped
    /// and empty chains turned into constants, so that printing is canonical.
    static func simplified(_ predicate: QueryPredicate) -> QueryPredicate {
        switch predicate.node {
        case .and(let parts):
            return chain(parts.flatMap { part -> [QueryPredicate] in
                let part = simplified(part)
                if case .and(let inner) = part.node { return inner }
                return [part]
            }, make: { .and($0) }, empty: true)
        case .or(let parts):
            return chain(parts.flatMap { part -> [QueryPredicate] in
                let part = simplified(part)
                if case .or(let inner) = part.node { return inner }
                return [part]
            }, make: { .or($0) }, empty: false)
        default:
            return predicate
        }
    }

    private static func chain(
        _ parts: [QueryPredicate], make: ([QueryPredicate]) -> QueryPredicate.Node, empty: Bool
    ) -> QueryPredicate {
        switch parts.count {
        case 0: QueryPredicate(.constant(empty))
        case 1: parts[0]
        default: QueryPredicate(make(parts))
        }
    }
}
