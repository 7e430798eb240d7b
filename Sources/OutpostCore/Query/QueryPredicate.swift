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
        var parts: [QueryPredicate] = []
        for side in [lhs, rhs] {
            if case .and(let inner) = side.node { parts += inner } else { parts.append(side) }
        }
        return QueryPredicate(.and(parts))
    }

    /// Either predicate (flattening nested ORs).
    public static func || (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        var parts: [QueryPredicate] = []
        for side in [lhs, rhs] {
            if case .or(let inner) = side.node { parts += inner } else { parts.append(side) }
        }
        return QueryPredicate(.or(parts))
    }

    public static prefix func ! (predicate: QueryPredicate) -> QueryPredicate {
        QueryPredicate(.not(predicate))
    }

    /// The canonical query text (see `QueryPrinter`).
    public var description: String { QueryPrinter.print(self) }
}
