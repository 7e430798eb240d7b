extension QueryParser.State {
    /// `SORT(a ASC, b DESC)`, `DISTINCT(a, b)` or `LIMIT(n)`; the current token is the keyword.
    mutating func parseSuffix() throws(QueryError) -> ParsedQuery.Suffix {
        let keyword = advance()
        advance()
        switch keyword.word {
        case "sort":
            var keys: [ParsedQuery.SortKey] = []
            repeat {
                if !keys.isEmpty { advance() }
                let keyPath = try parseKeyPath()
                let ascending: Bool
                switch current.word {
                case "asc", "ascending": ascending = true
                case "desc", "descending": ascending = false
                default: throw error("expected ASC or DESC", at: current)
                }
                advance()
                keys.append(ParsedQuery.SortKey(keyPath: keyPath, ascending: ascending))
            } while current.isSymbol(",")
            try expectSymbol(")", "expected ',' or ')'")
            return .sort(keys)
        case "distinct":
            var keyPaths: [QueryKeyPath] = []
            repeat {
                if !keyPaths.isEmpty { advance() }
                keyPaths.append(try parseKeyPath())
            } while current.isSymbol(",")
            try expectSymbol(")", "expected ',' or ')'")
            return .distinct(keyPaths)
        default:
            guard case .integer(let limit) = current.kind, limit >= 0, let count = Int(exactly: limit) else {
                throw error("LIMIT expects a non-negative integer", at: current)
            }
            advance()
            try expectSymbol(")", "expected ')'")
            return .limit(count)
        }
    }
}
