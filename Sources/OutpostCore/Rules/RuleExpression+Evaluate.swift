extension RuleExpression {
    /// Whether `document` matches the expression. Field names read the document; `%%root` is the document.
    public func evaluate(_ document: Document, context: RuleContext) -> Bool {
        if case .constant(let value) = node { return value }
        // Only `%%root` reads the context's document: without it the context is used as given, not copied.
        guard syncIncompatibility != nil else { return Self.evaluate(node, document, context) }
        var context = context
        context.root = document
        return Self.evaluate(node, document, context)
    }

    /// The expression's value without a document, for `apply_when` with Sync and Partition-Based Sync
    /// permissions. Field names read as missing fields; `%%root` reads `context.root`.
    public func evaluate(context: RuleContext) -> Bool {
        Self.evaluate(node, Document(), context)
    }

    private static func evaluate(_ node: Node, _ document: Document, _ context: RuleContext) -> Bool {
        switch node {
        case .constant(let value):
            return value
        case .and(let parts):
            return parts.allSatisfy { evaluate($0, document, context) }
        case .or(let parts):
            return parts.contains { evaluate($0, document, context) }
        case .nor(let parts):
            return !parts.contains { evaluate($0, document, context) }
        case .match(let subject, let conditions):
            let candidates: [Value?]
            switch subject {
            case .field(let path): candidates = lookup(path[...], in: .document(document))
            case .expansion(let expansion): candidates = [context.resolve(expansion)]
            }
            return conditions.allSatisfy { matches($0, candidates, context) }
        }
    }

    /// The values a dotted path reaches, MongoDB style: through embedded documents, into every document of an
    /// array, and by numeric index. A nil entry is a branch where the field is missing.
    static func lookup(_ path: ArraySlice<String>, in value: Value) -> [Value?] {
        guard let key = path.first else { return [value] }
        let rest = path.dropFirst()
        switch value {
        case .document(let document):
            guard let next = document[key] else { return [nil] }
            return lookup(rest, in: next)
        case .array(let elements):
            if let index = Int(key), elements.indices.contains(index) {
                return lookup(rest, in: elements[index])
            }
            var found: [Value?] = []
            for case .document(let element) in elements {
                found += lookup(path, in: .document(element))
            }
            return found.isEmpty ? [nil] : found
        default:
            return [nil]
        }
    }

    private static func matches(_ condition: Condition, _ candidates: [Value?], _ context: RuleContext) -> Bool {
        switch condition {
        case .exists(let expected):
            return candidates.contains { $0 != nil } == expected
        case .not(let inner):
            return !inner.allSatisfy { matches($0, candidates, context) }
        case .compare(let comparison, let operand):
            // An operand with no value (a missing expansion) fails closed: it matches nothing, even with $ne.
            guard let value = resolve(operand, context) else { return false }
            switch comparison {
            case .eq: return equals(candidates, value, expandOperand: operand.isExpansion)
            case .ne: return !equals(candidates, value, expandOperand: operand.isExpansion)
            case .gt, .gte, .lt, .lte: return compares(candidates, comparison, value)
            }
        case .in(let operand):
            guard let list = resolveList(operand, context) else { return false }
            return list.contains { equals(candidates, $0, expandOperand: false) }
        case .notIn(let operand):
            guard let list = resolveList(operand, context) else { return false }
            return !list.contains { equals(candidates, $0, expandOperand: false) }
        }
    }

    private static func resolve(_ operand: Operand, _ context: RuleContext) -> Value? {
        switch operand {
        case .value(let value): value
        case .expansion(let expansion): context.resolve(expansion)
        case .list(let items): .array(items.compactMap { resolve($0, context) })
        case .function(let name, let arguments):
            context.functionResults?[call(name, arguments, context)]
        }
    }

    /// A `%function` call with its arguments resolved (a missing expansion is null, as App Services passes it).
    private static func call(_ name: String, _ arguments: [Operand], _ context: RuleContext) -> RuleFunctionCall {
        RuleFunctionCall(name: name, arguments: arguments.map { resolve($0, context) ?? .null })
    }

    /// The `%function` calls evaluating the expression for `document` would make, with their arguments resolved
    /// as evaluation resolves them (`%%root` is the document).
    public func functionCalls(_ document: Document?, context: RuleContext) -> [RuleFunctionCall] {
        guard callsFunctions else { return [] }
        var context = context
        if let document { context.root = document }
        var calls: [RuleFunctionCall] = []
        Self.collectCalls(node, context, into: &calls)
        return calls
    }

    private static func collectCalls(_ node: Node, _ context: RuleContext, into calls: inout [RuleFunctionCall]) {
        switch node {
        case .constant: break
        case .and(let parts), .or(let parts), .nor(let parts): for part in parts { collectCalls(part, context, into: &calls) }
        case .match(_, let conditions): for condition in conditions { collectCalls(condition, context, into: &calls) }
        }
    }

    private static func collectCalls(_ condition: Condition, _ context: RuleContext, into calls: inout [RuleFunctionCall]) {
        switch condition {
        case .compare(_, let operand), .in(let operand), .notIn(let operand): collectCalls(operand, context, into: &calls)
        case .exists: break
        case .not(let inner): for part in inner { collectCalls(part, context, into: &calls) }
        }
    }

    private static func collectCalls(_ operand: Operand, _ context: RuleContext, into calls: inout [RuleFunctionCall]) {
        switch operand {
        case .value, .expansion: break
        case .list(let items): for item in items { collectCalls(item, context, into: &calls) }
        case .function(let name, let arguments): calls.append(call(name, arguments, context))
        }
    }

    /// The values of a `$in` list: its elements (those that resolve), or the elements of the array an
    /// expansion stands for.
    private static func resolveList(_ operand: Operand, _ context: RuleContext) -> [Value]? {
        switch operand {
        case .list(let items): return items.compactMap { resolve($0, context) }
        case .expansion(let expansion):
            guard let value = context.resolve(expansion) else { return nil }
            if case .array(let elements) = value { return elements }
            return [value]
        case .value(let value): return [value]
        case .function:
            guard let value = resolve(operand, context) else { return nil }
            if case .array(let elements) = value { return elements }
            return [value]
        }
    }

    /// MongoDB equality: a candidate equal to the value, an array candidate with an equal element, and for
    /// null a missing field. With `expandOperand`, an array that an expansion stands for matches when any of
    /// its elements does (App Services: `{"email": "%%user.custom_data.manages"}`).
    static func equals(_ candidates: [Value?], _ value: Value, expandOperand: Bool) -> Bool {
        if case .array(let elements) = value, expandOperand,
            elements.contains(where: { equals(candidates, $0, expandOperand: false) }) {
            return true
        }
        for candidate in candidates {
            guard let candidate else {
                if value.isNull { return true }
                continue
            }
            if equal(candidate, value) { return true }
            if case .array(let elements) = candidate, elements.contains(where: { equal($0, value) }) { return true }
        }
        return false
    }

    private static func equal(_ lhs: Value, _ rhs: Value) -> Bool {
        QueryEvaluator.compare(lhs, .equal, rhs, options: [])
    }

    /// `$gt`, `$gte`, `$lt`, `$lte`: true when a candidate (or an element of an array candidate) of a comparable
    /// type is ordered as asked. `$gte`/`$lte` null match like `$eq` null; values of other types never match.
    private static func compares(_ candidates: [Value?], _ comparison: Comparison, _ value: Value) -> Bool {
        if value.isNull {
            return (comparison == .gte || comparison == .lte) && equals(candidates, value, expandOperand: false)
        }
        let op: ComparisonOperator = switch comparison {
        case .gt: .greaterThan
        case .gte: .greaterThanOrEqual
        case .lt: .lessThan
        default: .lessThanOrEqual
        }
        for case let candidate? in candidates {
            if !candidate.isNull, QueryEvaluator.compare(candidate, op, value, options: []) { return true }
            if case .array(let elements) = candidate,
                elements.contains(where: { !$0.isNull && QueryEvaluator.compare($0, op, value, options: []) }) {
                return true
            }
        }
        return false
    }
}

extension RuleExpression.Operand {
    var isExpansion: Bool {
        if case .expansion = self { return true }
        return false
    }
}
