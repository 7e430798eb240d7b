/// A query predicate: the abstract syntax tree that the string parser and the type-safe builder
/// both produce, that the printer writes back as canonical query text, that the client translates
/// to SQL, and that the server evaluates against documents.
///
/// The tree itself is `package`-visible so that Outpost's modules can walk it; users build
/// predicates from text (`QueryParser`) or with the type-safe `where { … }` builder.
public struct QueryPredicate: Hashable, Sendable, CustomStringConvertible {
    package indirect enum Node: Hashable, Sendable {
        /// `TRUEPREDICATE` / `FALSEPREDICATE`.
        case constant(Bool)
        case and([QueryPredicate])
        case or([QueryPredicate])
        case not(QueryPredicate)
        case comparison(Comparison)
    }

    /// `lhs op rhs` with options and a quantifier.
    package struct Comparison: Hashable, Sendable {
        package var lhs: QueryOperand
        package var op: ComparisonOperator
        package var rhs: QueryOperand
        package var options: StringOptions
        /// `ANY`/`ALL`/`NONE` written before the left key path; nil when none was written.
        package var quantifier: Quantifier?

        package init(
            lhs: QueryOperand, op: ComparisonOperator, rhs: QueryOperand, options: StringOptions = [],
            quantifier: Quantifier? = nil
        ) {
            self.lhs = lhs
            self.op = op
            self.rhs = rhs
            self.options = options
            self.quantifier = quantifier
        }
    }

    package var node: Node

    package init(_ node: Node) {
        self.node = node
    }

    public static let truePredicate = QueryPredicate(.constant(true))
    public static let falsePredicate = QueryPredicate(.constant(false))

    /// True when the predicate matches every object without looking at it: `TRUEPREDICATE`, and `AND`/`OR` built
    /// from it so that the whole is always true. Conservative: false for anything that compares a value.
    package var matchesEverything: Bool {
        switch node {
        case .constant(let value): value
        case .and(let parts): parts.allSatisfy(\.matchesEverything)
        case .or(let parts): parts.contains(where: \.matchesEverything)
        case .not, .comparison: false
        }
    }

    /// `lhs op rhs`.
    public static func comparison(
        _ lhs: QueryOperand, _ op: ComparisonOperator, _ rhs: QueryOperand, options: StringOptions = [],
        quantifier: Quantifier? = nil
    ) -> QueryPredicate {
        QueryPredicate(.comparison(Comparison(lhs: lhs, op: op, rhs: rhs, options: options, quantifier: quantifier)))
    }

    /// Both predicates (flattening nested ANDs).
    public static func && (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        allOf([lhs, rhs])
    }

    /// Either predicate (flattening nested ORs).
    public static func || (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        anyOf([lhs, rhs])
    }

    /// All of `predicates` (at least two), flattening nested ANDs: the same as joining them with `&&` from the left,
    /// built in one step. A chain of n conditions joined one `&&` at a time copied the growing chain n times.
    package static func allOf(_ predicates: [QueryPredicate]) -> QueryPredicate {
        var parts: [QueryPredicate] = []
        parts.reserveCapacity(predicates.count)
        for predicate in predicates {
            if case .and(let inner) = predicate.node { parts += inner } else { parts.append(predicate) }
        }
        return QueryPredicate(.and(parts))
    }

    /// Any of `predicates` (at least two), flattening nested ORs: the same as joining them with `||` from the left.
    package static func anyOf(_ predicates: [QueryPredicate]) -> QueryPredicate {
        var parts: [QueryPredicate] = []
        parts.reserveCapacity(predicates.count)
        for predicate in predicates {
            if case .or(let inner) = predicate.node { parts += inner } else { parts.append(predicate) }
        }
        return QueryPredicate(.or(parts))
    }

    public static prefix func ! (predicate: QueryPredicate) -> QueryPredicate {
        QueryPredicate(.not(predicate))
    }

    /// The canonical query text (see `QueryPrinter`).
    public var description: String { QueryPrinter.print(self) }
}
