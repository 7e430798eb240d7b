import OutpostCore

/// What every document a user can read in a collection meets, as a storage query: the equality conditions that the
/// document filters of every role that may apply share (`{"ownerId": "%%user.id"}` gives `ownerId = <the user>`).
///
/// A document is readable when the first role whose `apply_when` holds for it passes it through
/// `document_filters.read` or `.write`, so it meets the condition of one of the roles; for each field that every
/// role's filters constrain, the union of their values is a condition it meets. Storage looks that up in an index,
/// and the roles are still evaluated on each document read.
enum DataAPIReadScope {
    static func query(rules: RuleSet, collection: String, context: RuleContext) -> DocumentQuery {
        var scope: [String: [Value]]?
        for role in rules.roles(forCollection: collection) {
            // A role whose apply_when reads no document and is false for this user never applies.
            if role.applyWhen.isDocumentIndependent, !role.applyWhen.evaluate(context: context) { continue }
            guard let read = role.documentFilters.read, let write = role.documentFilters.write else { return .all }
            let roleScope = union(required(read, context), required(write, context))
            scope = scope.map { union($0, roleScope) } ?? roleScope
            if scope?.isEmpty == true { return .all }
        }
        // No role can apply: nothing is readable.
        guard let scope else { return DocumentQuery([DocumentQuery.Condition(field: "_id", values: [])]) }
        return DocumentQuery(scope.sorted { $0.key < $1.key }.map { DocumentQuery.Condition(field: $0.key, values: $0.value) })
    }

    /// One equality condition per field that the filter requires (its first, when it has several).
    private static func required(_ filter: RuleExpression, _ context: RuleContext) -> [String: [Value]] {
        var conditions: [String: [Value]] = [:]
        for (field, values) in filter.equalityConditions(context: context) where conditions[field] == nil {
            conditions[field] = values
        }
        return conditions
    }

    /// For each field both constrain, one of the values of either.
    private static func union(_ a: [String: [Value]], _ b: [String: [Value]]) -> [String: [Value]] {
        var out: [String: [Value]] = [:]
        for (field, values) in a {
            guard let other = b[field] else { continue }
            var seen = Set(values)
            out[field] = values + other.filter { seen.insert($0).inserted }
        }
        return out
    }
}
