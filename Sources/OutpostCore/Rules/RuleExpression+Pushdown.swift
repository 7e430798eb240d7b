extension RuleExpression {
    /// The equality conditions every matching document meets: for each top-level field named in the expression's
    /// top-level conjunction with `$eq` (or a plain value) or `$in`, the values of which the field must equal one
    /// (MongoDB equality, as ``evaluate(_:context:)`` compares: ``fieldEquals(_:anyOf:)``). Expansions are resolved
    /// in `context` (never `%%root`, which stands for the document); one that has no value leaves an empty list (it matches nothing).
    ///
    /// Storage drivers look such conditions up in an index; the expression is still evaluated on what they return,
    /// so conditions left out (`$or`, ranges, dotted paths) only cost reading more documents.
    package func equalityConditions(context: RuleContext) -> [(field: String, values: [Value])] {
        var found: [(field: String, values: [Value])] = []
        Self.collectEqualities(node, context, into: &found)
        return found
    }

    private static func collectEqualities(
        _ node: Node, _ context: RuleContext, into found: inout [(field: String, values: [Value])]
    ) {
        switch node {
        case .and(let parts):
            for part in parts { collectEqualities(part, context, into: &found) }
        case .match(.field(let path), let conditions) where path.count == 1:
            for condition in conditions {
                if let values = equalityValues(condition, context) { found.append((path[0], values)) }
            }
        default:
            break
        }
    }

    /// The values a condition requires the field to equal one of, or nil when it is not an equality.
    private static func equalityValues(_ condition: Condition, _ context: RuleContext) -> [Value]? {
        switch condition {
        case .compare(.eq, .value(let value)):
            return [value]
        case .compare(.eq, .expansion(let expansion)) where expansion.isSyncCompatible:
            // An array an expansion stands for matches when any element does, or the array as a whole.
            guard let value = context.resolve(expansion) else { return [] }
            if case .array(let elements) = value { return elements + [value] }
            return [value]
        case .in(.list(let items)):
            var values: [Value] = []
            for item in items {
                switch item {
                case .value(let value): values.append(value)
                case .expansion(let expansion):
                    guard expansion.isSyncCompatible else { return nil }
                    if let value = context.resolve(expansion) { values.append(value) }
                case .list, .function: return nil
                }
            }
            return values
        case .in(.expansion(let expansion)) where expansion.isSyncCompatible:
            guard let value = context.resolve(expansion) else { return [] }
            if case .array(let elements) = value { return elements }
            return [value]
        case .in(.value(let value)):
            return [value]
        default:
            return nil
        }
    }

    /// Whether a top-level field's value (nil: missing) equals one of `values` as an `$in` of them matches it.
    package static func fieldEquals(_ value: Value?, anyOf values: [Value]) -> Bool {
        values.contains { equals([value], $0, expandOperand: false) }
    }
}
