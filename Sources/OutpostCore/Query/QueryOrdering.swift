/// A whole query: a predicate plus the `SORT(…)`, `DISTINCT(…)` and `LIMIT(…)` suffixes, in the
/// order they were written (Realm applies them in that order).
public struct ParsedQuery: Hashable, Sendable, CustomStringConvertible {
    /// One suffix of a query.
    public enum Suffix: Hashable, Sendable {
        /// `SORT(a ASC, b DESC)`.
        case sort([SortKey])
        /// `DISTINCT(a, b)`.
        case distinct([QueryKeyPath])
        /// `LIMIT(n)`.
        case limit(Int)
    }

    /// One key of a `SORT`.
    public struct SortKey: Hashable, Sendable {
        public var keyPath: QueryKeyPath
        public var ascending: Bool
        public init(keyPath: QueryKeyPath, ascending: Bool) {
            self.keyPath = keyPath
            self.ascending = ascending
        }
    }

    public var predicate: QueryPredicate
    public var suffixes: [Suffix]

    public init(predicate: QueryPredicate, suffixes: [Suffix] = []) {
        self.predicate = predicate
        self.suffixes = suffixes
    }

    public var description: String { QueryPrinter.print(self) }
}
