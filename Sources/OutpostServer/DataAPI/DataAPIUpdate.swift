import OutpostCore

/// A parsed `update` document: `$set`, `$unset`, `$inc` and `$push`. Replacement documents (without operators)
/// are refused.
struct DataAPIUpdate: Sendable {
    enum Operation: Sendable {
        case set(String, Value)
        case unset(String)
        case inc(String, Value)
        case push(String, [Value])
    }

    static let operators = ["$set", "$unset", "$inc", "$push"]
    var operations: [Operation] = []

    init(json: JSONValue?) throws(APIError) {
        guard let json else { throw APIError.badRequest("missing field 'update'") }
        guard case .object(let fields) = json else {
            throw APIError.badRequest("'update' must be an object, not \(DataAPIValidation.describe(json))")
        }
        guard !fields.isEmpty else { throw APIError.badRequest("'update' must not be empty") }
        if let key = fields.keys.sorted().first(where: { !$0.hasPrefix("$") }) {
            throw APIError.badRequest(
                "'update' must use update operators (\(Self.operators.joined(separator: ", "))); "
                    + "replacement documents are not supported (found field \(DataAPIValidation.quoted(key)))")
        }
        var touched: Set<String> = []
        for op in fields.keys.sorted() {
            guard Self.operators.contains(op) else {
                throw APIError(
                    status: .badRequest, errorCode: "UnknownOperator", code: "unknownOperator",
                    message: "unknown update operator \(DataAPIValidation.quoted(op)) in 'update'; supported: "
                        + Self.operators.joined(separator: ", "))
            }
            guard case .object(let targets) = fields[op]! else {
                throw APIError.badRequest("'update.\(op)' must be an object of field paths")
            }
            for path in targets.keys.sorted() {
                try DataAPIValidation.checkFieldPath(path, in: "'update.\(op)'")
                if path == "_id" || path.hasPrefix("_id.") {
                    throw APIError.badRequest("'update.\(op)' must not change '_id'")
                }
                for other in touched where other == path || other.hasPrefix(path + ".") || path.hasPrefix(other + ".") {
                    throw APIError.badRequest("'update' changes \(DataAPIValidation.quoted(path)) and "
                        + "\(DataAPIValidation.quoted(other)), which conflict")
                }
                touched.insert(path)
                let operand = targets[path]!
                let where_ = "update.\(op).\(path)"
                switch op {
                case "$set":
                    try DataAPIValidation.checkFieldNames(operand, path: where_)
                    operations.append(.set(path, try Self.value(operand, at: where_)))
                case "$unset":
                    operations.append(.unset(path))
                case "$inc":
                    let value = try Self.value(operand, at: where_)
                    guard DataAPIValues.number(value) != nil else {
                        throw APIError.badRequest("'\(where_)' must be a number, not \(DataAPIValidation.describe(operand))")
                    }
                    operations.append(.inc(path, value))
                default:  // $push
                    if case .object(let modifiers) = operand, let each = modifiers["$each"] {
                        guard modifiers.count == 1 else {
                            throw APIError.badRequest("'\(where_)' supports only the '$each' modifier")
                        }
                        guard case .array(let items) = each else {
                            throw APIError.badRequest("'\(where_).$each' must be an array")
                        }
                        try DataAPIValidation.checkFieldNames(each, path: where_)
                        var values: [Value] = []
                        for (i, item) in items.enumerated() { values.append(try Self.value(item, at: "\(where_).$each[\(i)]")) }
                        operations.append(.push(path, values))
                    } else {
                        try DataAPIValidation.checkFieldNames(operand, path: where_)
                        operations.append(.push(path, [try Self.value(operand, at: where_)]))
                    }
                }
            }
        }
    }

    static func value(_ json: JSONValue, at path: String) throws(APIError) -> Value {
        do { return try Value(extendedJSON: json, path: path) } catch {
            throw APIError.badRequest(error.message)
        }
    }

    /// The document after the update.
    func apply(to document: Document) throws(APIError) -> Document {
        var out = document
        for operation in operations {
            switch operation {
            case .set(let path, let value):
                guard DataAPIValues.set(path, to: value, in: &out) else { throw notDocument(path, document) }
            case .unset(let path):
                DataAPIValues.remove(path, from: &out)
            case .inc(let path, let amount):
                let sum: Value
                switch (DataAPIValues.get(path, in: out), amount) {
                case (nil, _), (.null?, _): sum = amount
                case (.int(let a)?, .int(let b)):
                    let (result, overflow) = a.addingReportingOverflow(b)
                    guard !overflow else { throw APIError.badRequest("$inc of '\(path)' overflows a 64-bit integer") }
                    sum = .int(result)
                case (let current?, _):
                    guard let a = DataAPIValues.number(current), let b = DataAPIValues.number(amount) else {
                        throw APIError.badRequest("cannot $inc '\(path)': it holds a \(current.typeName), not a number")
                    }
                    sum = .double(a + b)
                }
                guard DataAPIValues.set(path, to: sum, in: &out) else { throw notDocument(path, document) }
            case .push(let path, let values):
                let list: [Value]
                switch DataAPIValues.get(path, in: out) {
                case nil, .null?: list = values
                case .array(let existing)?: list = existing + values
                case let current?:
                    throw APIError.badRequest("cannot $push to '\(path)': it holds a \(current.typeName), not an array")
                }
                guard DataAPIValues.set(path, to: .array(list), in: &out) else { throw notDocument(path, document) }
            }
        }
        return out
    }

    private func notDocument(_ path: String, _ document: Document) -> APIError {
        APIError.badRequest("cannot update '\(path)': a part of the path holds a value that is not a document")
    }

    /// The top-level fields whose values differ.
    static func changedFields(_ before: Document?, _ after: Document?) -> [String] {
        let keys = Set(before.map { Array($0.fields.keys) } ?? []).union(after.map { Array($0.fields.keys) } ?? [])
        return keys.filter { before?[$0] != after?[$0] }.sorted()
    }
}
