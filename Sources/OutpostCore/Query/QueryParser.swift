/// Parses Realm Query Language text into a `QueryPredicate` (and a `ParsedQuery` with its
/// `SORT`/`DISTINCT`/`LIMIT` suffixes).
///
/// ```
/// let query = try QueryParser.parse("age >= 18 AND name BEGINSWITH[c] $0 SORT(age DESC) LIMIT(10)")
/// ```
///
/// Grammar, loosest binding first (keywords are case-insensitive):
///
///     query      := predicate suffix*
///     predicate  := and (("OR" | "||") and)*
///     and        := not (("AND" | "&&") not)*
///     not        := ("NOT" | "!") not | "(" predicate ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
///     comparison := quantifier? operand operator options? operand
///     operator   := == = != <> < <= =< > >= => BEGINSWITH ENDSWITH CONTAINS LIKE IN BETWEEN
///     options    := [c] | [d] | [cd]     (on ==, !=, IN and the string operators)
///     operand    := keyPath | literal | $n | %@ | "{" (operand ("," operand)*)? "}"
///                 | SUBQUERY "(" keyPath "," $var "," predicate ")" "." (@count | @size)
///     suffix     := SORT(keyPath ASC|DESC, …) | DISTINCT(keyPath, …) | LIMIT(n)
///
/// `%@` arguments are numbered in order of appearance; mixing them with `$n` is an error.
public enum QueryParser {
    /// Parses a whole query: a predicate followed by any `SORT`, `DISTINCT` and `LIMIT` suffixes.
    public static func parse(_ text: String) throws(QueryError) -> ParsedQuery {
        var state = State(query: text, tokens: try QueryLexer.tokenize(text))
        return try state.parseQuery(allowingSuffixes: true)
    }

    /// Parses a predicate alone; `SORT`, `DISTINCT` and `LIMIT` are a syntax error.
    public static func parsePredicate(_ text: String) throws(QueryError) -> QueryPredicate {
        var state = State(query: text, tokens: try QueryLexer.tokenize(text))
        return try state.parseQuery(allowingSuffixes: false).predicate
    }

    /// A recursive-descent parser over the tokens of one query.
    struct State {
        enum ArgumentStyle { case numbered, positional }

        let query: String
        let tokens: [QueryToken]
        var index = 0
        var argumentStyle: ArgumentStyle?
        var nextPositionalArgument = 0
        /// Parentheses, `NOT`s, subqueries and lists open around the current token.
        var depth = 0
        /// The deepest nesting a query may have: deeper ones are refused rather than parsed by ever deeper
        /// recursion (a query from a client must not be able to exhaust a server thread's stack).
        static let maxDepth = 200

        init(query: String, tokens: [QueryToken]) {
            self.query = query
            self.tokens = tokens
        }

        var current: QueryToken { tokens[index] }

        func peek(_ offset: Int) -> QueryToken { tokens[min(index + offset, tokens.count - 1)] }

        @discardableResult
        mutating func advance() -> QueryToken {
            let token = tokens[index]
            if index < tokens.count - 1 { index += 1 }
            return token
        }

        func isKeyword(_ keyword: String) -> Bool { current.word == keyword }

        func error(_ message: String, at token: QueryToken, kind: QueryError.Kind = .syntax) -> QueryError {
            QueryError(kind, message, query: query, position: token.position, token: token.text)
        }

        /// Enters one more level of nesting at `token`; throws past ``maxDepth``. Leave it with `depth -= 1`.
        mutating func enter(at token: QueryToken) throws(QueryError) {
            depth += 1
            guard depth <= Self.maxDepth else {
                throw error("the query nests more than \(Self.maxDepth) levels deep", at: token)
            }
        }

        mutating func expectSymbol(_ symbol: String, _ message: String) throws(QueryError) {
            guard current.isSymbol(symbol) else { throw error(message, at: current) }
            advance()
        }

        mutating func parseQuery(allowingSuffixes: Bool) throws(QueryError) -> ParsedQuery {
            let predicate = try parseOr()
            var suffixes: [ParsedQuery.Suffix] = []
            while let word = current.word, ["sort", "distinct", "limit"].contains(word), peek(1).isSymbol("(") {
                guard allowingSuffixes else {
                    throw error("\(word.uppercased()) is not allowed in a predicate", at: current)
                }
                suffixes.append(try parseSuffix())
            }
            guard case .end = current.kind else {
                if current.isSymbol(")") { throw error("unbalanced ')'", at: current) }
                throw error("unexpected text after the predicate", at: current)
            }
            return ParsedQuery(predicate: predicate, suffixes: suffixes)
        }
    }
}
