/// One token of query text, with the 0-based character offset where it starts and its source text.
struct QueryToken: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// A word: a property name or a keyword (keywords are matched case-insensitively by the parser).
        case identifier(String)
        /// A quoted string, escapes resolved.
        case string(String)
        case integer(Int64)
        case double(Double)
        /// A typed literal: `oid(…)`, `uuid(…)`, a timestamp, `B64"…"`, `decimal128(…)`.
        case literal(Value)
        /// `$n`.
        case argument(Int)
        /// `%@`.
        case positionalArgument
        /// `@count`, `@size`, `@sum`, `@avg`, `@min`, `@max`, `@keys`, `@values`.
        case collectionOperator(String)
        /// Punctuation and operators: `( ) { } [ ] , .` and `== != < <= > >= && || !` (normalised).
        case symbol(String)
        case end
    }

    var kind: Kind
    var position: Int
    var text: String

    init(_ kind: Kind, position: Int, text: String) {
        self.kind = kind
        self.position = position
        self.text = text
    }

    /// The lower-cased word if this is an identifier.
    var word: String? {
        if case .identifier(let name) = kind { return name.lowercased() }
        return nil
    }

    func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let s) = kind { return s == symbol }
        return false
    }
}
