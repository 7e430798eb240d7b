import OutpostCore

/// Checks a subscription set the way the original server does: each class's query must parse, may use only
/// queryable top-level fields, and may not use what subscriptions do not support (key paths through links or
/// embedded objects, aggregates, subqueries, SORT/DISTINCT/LIMIT, arguments). The first problem becomes the
/// text of a 226 (bad query) error for that subscription version.
struct SubscriptionValidator {
    let settings: SyncAppSettings

    /// The parsed predicate per class, or the error message.
    func validate(_ queries: [String: String]) -> Result<[String: QueryPredicate], SyncProtocolError> {
        var out: [String: QueryPredicate] = [:]
        for className in queries.keys.sorted() {
            let text = queries[className]!
            if let problem = problem(className: className, text: text, into: &out) {
                return .failure(SyncProtocolError(.badQuery, problem))
            }
        }
        return .success(out)
    }

    private func problem(className: String, text: String, into out: inout [String: QueryPredicate]) -> String? {
        let table = "table \"\(className)\""
        if let problem = ObjectNames.problem(withClassName: className) {
            return "Invalid query: class name \(Value.string(className).extendedJSONText) is not a valid name: it \(problem)"
        }
        if settings.asymmetricTables.contains(className) {
            return "Invalid query: \(table) is asymmetric: its objects are only uploaded and cannot be subscribed to"
        }
        guard text.utf8.count <= SyncProtocolLimits.maxQueryBytes else {
            return "Invalid query: unsupported query for \(table): the query is \(text.utf8.count) bytes, more than the limit of \(SyncProtocolLimits.maxQueryBytes)"
        }
        let parsed: ParsedQuery
        do {
            parsed = try QueryParser.parse(text)
        } catch {
            return "Invalid query: failed to parse query for \(table): \(error.message)"
        }
        guard parsed.suffixes.isEmpty else {
            return "Invalid query: unsupported query for \(table): SORT, DISTINCT and LIMIT are not supported in subscriptions"
        }
        if let problem = check(parsed.predicate, className: className) {
            return "Invalid query: unsupported query for \(table): \(problem)"
        }
        out[className] = parsed.predicate
        return nil
    }

    private func check(_ predicate: QueryPredicate, className: String) -> String? {
        switch predicate.node {
        case .constant: return nil
        case .and(let items), .or(let items):
            for item in items { if let p = check(item, className: className) { return p } }
            return nil
        case .not(let inner): return check(inner, className: className)
        case .comparison(let c):
            return check(c.lhs, className: className) ?? check(c.rhs, className: className)
        }
    }

    private func check(_ operand: QueryOperand, className: String) -> String? {
        switch operand {
        case .value: return nil
        case .argument(let i): return "argument $\(i) is not bound; subscriptions must contain their values"
        case .subquery: return "SUBQUERY is not supported in subscriptions"
        case .geo: return "GEOWITHIN is not supported in subscriptions"
        case .list(let items):
            for item in items { if let p = check(item, className: className) { return p } }
            return nil
        case .keyPath(let path):
            guard path.components.count == 1, case .property(let name) = path.components[0] else {
                if path.components.contains(where: { if case .aggregate = $0 { true } else { false } }) {
                    return "aggregates such as @count are not supported in subscriptions (key \"\(path)\")"
                }
                return "key paths through links, embedded objects or maps are not supported in subscriptions (key \"\(path)\")"
            }
            guard settings.isQueryable(name, in: className) else {
                return "key \"\(name)\" is not a queryable field"
            }
            return nil
        }
    }
}
