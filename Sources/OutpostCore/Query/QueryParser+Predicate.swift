extension QueryParser.State {
    /// `a OR b OR …`, collected and joined once (``QueryPredicate/anyOf(_:)``).
    mutating func parseOr() throws(QueryError) -> QueryPredicate {
        let first = try parseAnd()
        guard isKeyword("or") || current.isSymbol("||") else { return first }
        var operands = [first]
        while isKeyword("or") || current.isSymbol("||") {
            advance()
            operands.append(try parseAnd())
        }
        return .anyOf(operands)
    }

    /// `a AND b AND …`, collected and joined once (``QueryPredicate/allOf(_:)``).
    mutating func parseAnd() throws(QueryError) -> QueryPredicate {
        let first = try parseNot()
        guard isKeyword("and") || current.isSymbol("&&") else { return first }
        var operands = [first]
        while isKeyword("and") || current.isSymbol("&&") {
            advance()
            operands.append(try parseNot())
        }
        return .allOf(operands)
    }

    mutating func parseNot() throws(QueryError) -> QueryPredicate {
        if isKeyword("not") || current.isSymbol("!") {
            try enter(at: advance())
            let inner = try parseNot()
            depth -= 1
            return !inner
        }
        if current.isSymbol("(") {
            try enter(at: advance())
            let inner = try parseOr()
            try expectSymbol(")", "expected ')'")
            depth -= 1
            return inner
        }
        if isKeyword("truepredicate") {
            advance()
            return .truePredicate
        }
        if isKeyword("falsepredicate") {
            advance()
            return .falsePredicate
        }
        return try parseComparison()
    }

    mutating func parseComparison() throws(QueryError) -> QueryPredicate {
        var quantifier: Quantifier?
        if let word = current.word, !Self.startsOperator(peek(1)) {
            switch word {
            case "any", "some": quantifier = .any
            case "all": quantifier = .all
            case "none": quantifier = Quantifier.none
            default: break
            }
            if quantifier != nil { advance() }
        }
        let lhsToken = current
        let lhs = try parseOperand()
        if quantifier != nil {
            guard case .keyPath = lhs else { throw error("a quantifier must be followed by a key path", at: lhsToken) }
        }
        let operatorToken = current
        let op = try parseOperator()
        let options = try parseOptions(for: op, operatorToken: operatorToken)
        let rhsToken = current
        let rhs = try parseOperand()
        if op == .between {
            switch rhs {
            case .list(let bounds) where bounds.count == 2: break
            case .argument: break
            default: throw error("BETWEEN expects a list of two values", at: rhsToken)
            }
        }
        if op == .geoWithin {
            guard case .keyPath = lhs else { throw error("GEOWITHIN needs a key path on its left", at: lhsToken) }
            switch rhs {
            case .geo, .argument: break
            default: throw error("GEOWITHIN expects geoBox(…), geoPolygon(…), geoCircle(…) or an argument", at: rhsToken)
            }
        } else if case .geo = rhs {
            throw error("a geospatial shape can only follow GEOWITHIN", at: rhsToken)
        }
        if op == .in, case .value = rhs {
            throw error("IN expects a list, a key path or an argument", at: rhsToken)
        }
        return .comparison(lhs, op, rhs, options: options, quantifier: quantifier)
    }

    private mutating func parseOperator() throws(QueryError) -> ComparisonOperator {
        let token = current
        let op: ComparisonOperator? = switch token.kind {
        case .symbol(let symbol): ComparisonOperator(rawValue: symbol)
        case .identifier(let word): ComparisonOperator.allCases.first { $0.rawValue.lowercased() == word.lowercased() }
        default: nil
        }
        guard let op else { throw error("expected a comparison operator", at: token) }
        advance()
        return op
    }

    /// `[c]`, `[d]` or `[cd]` right after an operator that takes them.
    private mutating func parseOptions(
        for op: ComparisonOperator, operatorToken: QueryToken
    ) throws(QueryError) -> StringOptions {
        guard current.isSymbol("[") else { return [] }
        let open = current
        guard let word = peek(1).word, peek(2).isSymbol("]") else {
            throw error("expected string options [c], [d] or [cd]", at: open)
        }
        var options: StringOptions = []
        for letter in word {
            switch letter {
            case "c" where !options.contains(.caseInsensitive): options.insert(.caseInsensitive)
            case "d" where !options.contains(.diacriticInsensitive): options.insert(.diacriticInsensitive)
            default: throw error("expected string options [c], [d] or [cd]", at: peek(1))
            }
        }
        guard op.isStringOperator || op == .equal || op == .notEqual || op == .in else {
            throw error("string options are not allowed on '\(op.rawValue)'", at: operatorToken)
        }
        advance()
        advance()
        advance()
        return options
    }

    /// True if the token continues a key path or is a comparison operator, so a preceding `ANY`,
    /// `ALL`, … is a property name rather than a quantifier.
    private static func startsOperator(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .symbol(let symbol): ["==", "!=", "<", "<=", ">", ">=", ".", "["].contains(symbol)
        case .identifier(let word):
            ComparisonOperator.allCases.contains { $0.rawValue.lowercased() == word.lowercased() }
        case .end: true
        default: false
        }
    }
}
