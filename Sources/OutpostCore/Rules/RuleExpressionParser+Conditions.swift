extension RuleExpressionParser {
    /// Extended JSON keys that make an object a literal value rather than an operator object.
    private static let extendedJSONKeys: Set<String> = [
        "$oid", "$date", "$numberDecimal", "$numberInt", "$numberLong", "$numberDouble", "$uuid", "$binary",
        "$ref", "$id",
    ]

    /// The conditions on one field: an operator object (`{"$gt": 3, "$lt": 9}`) or a value (implicit `$eq`).
    mutating func conditions(_ json: JSONValue, path: String) throws(RuleError) -> [RuleExpression.Condition] {
        guard let operators = Self.operatorObject(json) else {
            return [.compare(.eq, try operand(json, path: path))]
        }
        var conditions: [RuleExpression.Condition] = []
        for key in operators.keys.sorted() {
            conditions.append(try condition(key, operators[key]!, path: path))
        }
        return conditions
    }

    /// The object's fields when it is an operator object: it has a key starting with `$` (other than an Extended
    /// JSON type key) or with a single `%`.
    private static func operatorObject(_ json: JSONValue) -> [String: JSONValue]? {
        guard case .object(let fields) = json else { return nil }
        let isOperator = fields.keys.contains { key in
            (key.hasPrefix("$") && !extendedJSONKeys.contains(key)) || (key.hasPrefix("%") && !key.hasPrefix("%%"))
        }
        return isOperator ? fields : nil
    }

    /// One operator and its operand. Errors about the operator name the field's path; errors inside the
    /// operand name the operand's path (e.g. `team.$in[1]`).
    private mutating func condition(
        _ key: String, _ json: JSONValue, path: String
    ) throws(RuleError) -> RuleExpression.Condition {
        let operandPath = RuleError.join(path, key)
        switch key {
        case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte":
            return .compare(RuleExpression.Comparison(rawValue: key)!, try operand(json, path: operandPath))
        case "$in", "%in", "$nin", "%nin":
            let list = try listOperand(json, operator: key, path: path, operandPath: operandPath)
            return key.hasSuffix("nin") ? .notIn(list) : .in(list)
        case "$exists", "%exists":
            switch json {
            case .bool(let value): return .exists(value)
            case .int(let value): return .exists(value != 0)
            default:
                throw RuleError(code: .invalidOperand, path: path,
                    problem: "\(key) needs true or false, not \(Self.describe(json))")
            }
        case "$not":
            guard Self.operatorObject(json) != nil else {
                throw RuleError(code: .invalidOperand, path: path, problem: "$not needs an object of operators")
            }
            return .not(try conditions(json, path: path))
        case "%function":
            // `{"%%true": {"%function": …}}`: the subject equals the function's result.
            return .compare(.eq, try function(json, path: operandPath))
        default:
            if !key.hasPrefix("$"), !key.hasPrefix("%") {
                throw RuleError(code: .unknownOperator, path: path,
                    problem: "\(RuleError.quoted(key)) is not an operator; an operator object may hold operators only")
            }
            throw RuleError(code: .unknownOperator, path: path, problem: "unknown operator \(RuleError.quoted(key))")
        }
    }

    /// The operand of `$in`/`$nin`: an array whose elements are values or expansions, or one expansion that
    /// stands for an array (e.g. `"%%user.custom_data.teams"`).
    private mutating func listOperand(
        _ json: JSONValue, operator key: String, path: String, operandPath: String
    ) throws(RuleError) -> RuleExpression.Operand {
        switch json {
        case .array(let items):
            var operands: [RuleExpression.Operand] = []
            for (index, item) in items.enumerated() {
                operands.append(try operand(item, path: "\(operandPath)[\(index)]"))
            }
            return .list(operands)
        case .string(let text) where text.hasPrefix("%%"):
            return .expansion(try expansion(text, path: operandPath))
        default:
            throw RuleError(code: .invalidOperand, path: path,
                problem: "\(key) needs an array, not \(Self.describe(json))")
        }
    }

    /// A value in Extended JSON, or an expansion string such as `"%%user.id"`.
    mutating func operand(_ json: JSONValue, path: String) throws(RuleError) -> RuleExpression.Operand {
        if case .string(let text) = json, text.hasPrefix("%%") {
            return .expansion(try expansion(text, path: path))
        }
        if case .object(let fields) = json, fields.count == 1, let call = fields["%function"] {
            return try function(call, path: RuleError.join(path, "%function"))
        }
        do {
            return .value(try Value(extendedJSON: json, path: path))
        } catch {
            // The Extended JSON reader names the path in `text` and repeats it in its message.
            let where_ = error.text ?? path
            let prefix = "Invalid Extended JSON at \(where_): "
            let problem = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
            throw RuleError(code: .invalidOperand, path: where_, problem: problem)
        }
    }

    /// `{"name": "isOwner", "arguments": ["%%root.owner_id", 3]}`: a call whose arguments are values or expansions.
    mutating func function(_ json: JSONValue, path: String) throws(RuleError) -> RuleExpression.Operand {
        guard allowsFunctions else {
            throw RuleError(code: .unsupported, path: path,
                problem: "'%function' is allowed only in the rules of collections (Data API and functions), not here")
        }
        guard case .object(let fields) = json else {
            throw RuleError(code: .invalidOperand, path: path,
                problem: "'%function' needs {\"name\": …, \"arguments\": […]}, not \(Self.describe(json))")
        }
        for key in fields.keys.sorted() where key != "name" && key != "arguments" {
            throw RuleError(code: .invalidOperand, path: RuleError.join(path, key),
                problem: "unknown key \(RuleError.quoted(key)) in '%function' (expected name and arguments)")
        }
        guard case .string(let name)? = fields["name"], !name.isEmpty else {
            throw RuleError(code: .invalidOperand, path: RuleError.join(path, "name"),
                problem: "'%function' needs the function's name as a non-empty string")
        }
        var arguments: [RuleExpression.Operand] = []
        switch fields["arguments"] {
        case nil: break
        case .array(let items)?:
            for (index, item) in items.enumerated() {
                let itemPath = "\(RuleError.join(path, "arguments"))[\(index)]"
                if case .object(let inner) = item, inner["%function"] != nil {
                    throw RuleError(code: .unsupported, path: itemPath, problem: "a '%function' argument cannot call a function")
                }
                arguments.append(try operand(item, path: itemPath))
            }
        case let other?:
            throw RuleError(code: .invalidOperand, path: RuleError.join(path, "arguments"),
                problem: "'arguments' must be an array, not \(Self.describe(other))")
        }
        if syncIncompatibility == nil { syncIncompatibility = .init(path: path, expansion: "%function") }
        return .function(name: name, arguments: arguments)
    }
}
