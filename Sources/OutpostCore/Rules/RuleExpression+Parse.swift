extension RuleExpression {
    /// Parses an expression from JSON.
    ///
    /// - Parameters:
    ///   - json: `true`, `false`, `"%%true"`, `"%%false"` or an object of field conditions, expansions and
    ///     `$and`/`$or`/`$nor`.
    ///   - path: where the expression sits in the configuration, used in error messages
    ///     (e.g. `roles[0].document_filters.read`).
    /// - Throws: ``RuleError`` naming the path of the offending part.
    ///   - allowingFunctions: whether `%function` may appear (the rules of collections, for the Data API and
    ///     functions); elsewhere (filters, permissions) it is refused as unsupported.
    package static func parse(_ json: JSONValue, path: String, allowingFunctions: Bool = false) throws(RuleError)
        -> RuleExpression
    {
        var parser = RuleExpressionParser()
        parser.allowsFunctions = allowingFunctions
        let node = try parser.expression(json, path: path)
        return RuleExpression(node: node, json: json, syncIncompatibility: parser.syncIncompatibility)
    }

    /// Parses an expression from JSON text, e.g. `{"ownerId": "%%user.id"}`.
    ///
    /// - Throws: ``RuleError`` with code ``RuleError/Code/invalidOperand`` when the text is not JSON, otherwise
    ///   as ``parse(_:path:)``.
    public static func parse(jsonText: String, path: String = "") throws(RuleError) -> RuleExpression {
        guard let json = JSONValue.parse(jsonText) else {
            throw RuleError(code: .invalidOperand, path: path, problem: "the text is not valid JSON")
        }
        return try parse(json, path: path)
    }
}

/// Turns JSON into expression nodes, remembering the first document-dependent expansion it meets.
struct RuleExpressionParser {
    var syncIncompatibility: RuleExpression.SyncIncompatibility?
    var allowsFunctions = false

    mutating func expression(_ json: JSONValue, path: String) throws(RuleError) -> RuleExpression.Node {
        switch json {
        case .bool(let value):
            return .constant(value)
        case .string("%%true"):
            return .constant(true)
        case .string("%%false"):
            return .constant(false)
        case .object(let fields):
            var parts: [RuleExpression.Node] = []
            for key in fields.keys.sorted() {
                parts.append(try entry(key, fields[key]!, path: path))
            }
            return parts.count == 1 ? parts[0] : .and(parts)
        default:
            throw RuleError(code: .invalidOperand, path: path,
                problem: "an expression must be an object, true, false, \"%%true\" or \"%%false\", not \(Self.describe(json))")
        }
    }

    private mutating func entry(_ key: String, _ json: JSONValue, path: String) throws(RuleError) -> RuleExpression.Node {
        let keyPath = RuleError.join(path, key)
        switch key {
        case "$and", "$or", "$nor":
            guard case .array(let items) = json, !items.isEmpty else {
                throw RuleError(code: .invalidOperand, path: keyPath, problem: "\(key) needs a non-empty array of expressions")
            }
            var parts: [RuleExpression.Node] = []
            for (index, item) in items.enumerated() {
                parts.append(try expression(item, path: "\(keyPath)[\(index)]"))
            }
            return key == "$and" ? .and(parts) : key == "$or" ? .or(parts) : .nor(parts)
        case "%function":
            // `{"%function": …}` as a whole expression: the function returns true.
            return .match(.expansion(.constant(true)), [.compare(.eq, try function(json, path: keyPath))])
        default:
            break
        }
        if key.hasPrefix("%%") {
            let expansion = try self.expansion(key, path: keyPath)
            return .match(.expansion(expansion), try conditions(json, path: keyPath))
        }
        if key.hasPrefix("$") || key.hasPrefix("%") {
            throw RuleError(code: .unknownOperator, path: path, problem: "unknown operator \(RuleError.quoted(key))")
        }
        let components = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: \.isEmpty) else {
            throw RuleError(code: .invalidOperand, path: keyPath, problem: "field path \(RuleError.quoted(key)) has an empty part")
        }
        return .match(.field(components), try conditions(json, path: keyPath))
    }

    mutating func expansion(_ text: String, path: String) throws(RuleError) -> RuleExpansion {
        let expansion = try RuleExpansion.parse(text, path: path)
        if !expansion.isSyncCompatible, syncIncompatibility == nil {
            syncIncompatibility = .init(path: path, expansion: text)
        }
        return expansion
    }

    static func describe(_ json: JSONValue) -> String { json.kindDescription }
}
