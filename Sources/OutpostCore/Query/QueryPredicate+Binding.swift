extension QueryPredicate {
    /// The predicate with every `$n` (and `%@`) replaced by `arguments[n]`.
    ///
    /// Throws `QueryError.Kind.unknownArgument` if an argument's index is beyond `arguments`.
    /// Extra arguments are ignored.
    public func binding(_ arguments: [Value]) throws(QueryError) -> QueryPredicate {
        try mapOperands { operand throws(QueryError) in try operand.binding(arguments) }
    }

    /// One more than the highest argument index used (`$2` alone gives 3); 0 without arguments.
    public var argumentCount: Int {
        var count = 0
        _ = mapOperands { operand in
            count = max(count, operand.argumentCount)
            return operand
        }
        return count
    }

    /// The predicate with `transform` applied to both operands of every comparison.
    package func mapOperands<E: Error>(_ transform: (QueryOperand) throws(E) -> QueryOperand) throws(E) -> QueryPredicate {
        switch node {
        case .constant:
            return self
        case .and(let parts):
            var mapped: [QueryPredicate] = []
            for part in parts { mapped.append(try part.mapOperands(transform)) }
            return QueryPredicate(.and(mapped))
        case .or(let parts):
            var mapped: [QueryPredicate] = []
            for part in parts { mapped.append(try part.mapOperands(transform)) }
            return QueryPredicate(.or(mapped))
        case .not(let inner):
            return QueryPredicate(.not(try inner.mapOperands(transform)))
        case .comparison(var comparison):
            comparison.lhs = try transform(comparison.lhs)
            comparison.rhs = try transform(comparison.rhs)
            return QueryPredicate(.comparison(comparison))
        }
    }
}

extension ParsedQuery {
    /// The query with its predicate's arguments bound (see `QueryPredicate.binding(_:)`).
    public func binding(_ arguments: [Value]) throws(QueryError) -> ParsedQuery {
        ParsedQuery(predicate: try predicate.binding(arguments), suffixes: suffixes)
    }

    /// The number of arguments the predicate uses (see `QueryPredicate.argumentCount`).
    public var argumentCount: Int { predicate.argumentCount }
}

extension QueryOperand {
    func binding(_ arguments: [Value]) throws(QueryError) -> QueryOperand {
        switch self {
        case .argument(let index):
            guard arguments.indices.contains(index) else {
                throw QueryError(.unknownArgument, "request for argument $\(index) but only \(arguments.count) "
                    + (arguments.count == 1 ? "argument was" : "arguments were") + " provided")
            }
            return .value(arguments[index])
        case .list(let elements):
            var bound: [QueryOperand] = []
            for element in elements { bound.append(try element.binding(arguments)) }
            return .list(bound)
        case .subquery(var subquery):
            subquery.predicate = try subquery.predicate.binding(arguments)
            return .subquery(subquery)
        case .keyPath(let keyPath):
            return .keyPath(try keyPath.binding(arguments))
        case .value, .geo:
            return self
        }
    }

    var argumentCount: Int {
        switch self {
        case .argument(let index): index + 1
        case .list(let elements): elements.map(\.argumentCount).max() ?? 0
        case .subquery(let subquery): subquery.predicate.argumentCount
        case .geo: 0
        case .keyPath(let keyPath):
            keyPath.components.map { if case .argumentSubscript(let i) = $0 { i + 1 } else { 0 } }.max() ?? 0
        case .value: 0
        }
    }
}
