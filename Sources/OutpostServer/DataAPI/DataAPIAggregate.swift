import OutpostCore

/// An aggregation pipeline over the documents a request can read: `$match`, `$sort`, `$limit`, `$skip`,
/// `$project`, `$count` and `$group` (`_id` a `"$field"` path, a constant or null; accumulators `$sum`, `$avg`,
/// `$min`, `$max`, `$first`, `$last`, `$push`).
enum DataAPIAggregate {
    static let stages = ["$match", "$sort", "$limit", "$skip", "$project", "$group", "$count"]

    static func run(_ pipeline: JSONValue?, on input: [Document], context: RuleContext) throws(APIError) -> [Document] {
        guard let pipeline else { throw APIError.badRequest("missing field 'pipeline'") }
        guard case .array(let stages) = pipeline else { throw APIError.badRequest("'pipeline' must be an array of stages") }
        var documents = input
        for (index, stage) in stages.enumerated() {
            let where_ = "pipeline[\(index)]"
            guard case .object(let fields) = stage, fields.count == 1, let first = fields.first else {
                throw APIError.badRequest("'\(where_)' must be an object with exactly one stage operator")
            }
            let (name, spec) = first
            switch name {
            case "$match":
                let filter = try DataAPIQuery.filter(spec, name: "\(where_).$match")
                documents = documents.filter { filter.evaluate($0, context: context) }
            case "$sort":
                documents = DataAPIQuery.sorted(documents, by: try DataAPIQuery.sort(spec, name: "\(where_).$sort"))
            case "$limit":
                guard let n = try DataAPIQuery.count(spec, name: "\(where_).$limit"), n > 0 else {
                    throw APIError.badRequest("'\(where_).$limit' must be a positive integer")
                }
                documents = Array(documents.prefix(n))
            case "$skip":
                documents = Array(documents.dropFirst(try DataAPIQuery.count(spec, name: "\(where_).$skip") ?? 0))
            case "$project":
                if let projection = try DataAPIQuery.Projection(spec, name: "\(where_).$project") {
                    documents = documents.map(projection.apply)
                }
            case "$count":
                guard case .string(let field) = spec, DataAPIValidation.problem(withName: field) == nil, !field.contains(".") else {
                    throw APIError.badRequest("'\(where_).$count' must be a field name")
                }
                documents = [[field: .int(Int64(documents.count))]]
            case "$group":
                documents = try group(documents, spec, at: "\(where_).$group")
            default:
                throw APIError(
                    status: .badRequest, errorCode: "UnknownOperator", code: "unknownOperator",
                    message: "unknown aggregation stage \(DataAPIValidation.quoted(name)) in '\(where_)'; supported: "
                        + Self.stages.joined(separator: ", "))
            }
        }
        return documents
    }

    /// An expression of `$group`: a `"$path"` reads a field, anything else is a constant.
    private static func expression(_ json: JSONValue, at path: String) throws(APIError) -> (Document) -> Value? {
        if case .string(let text) = json, text.hasPrefix("$") {
            let field = String(text.dropFirst())
            try DataAPIValidation.checkFieldPath(field, in: "'\(path)'")
            return { DataAPIValues.get(field, in: $0) }
        }
        let value = try DataAPIUpdate.value(json, at: path)
        return { _ in value }
    }

    private static func group(_ documents: [Document], _ spec: JSONValue, at path: String) throws(APIError) -> [Document] {
        guard case .object(let fields) = spec, let idSpec = fields["_id"] else {
            throw APIError.badRequest("'\(path)' must be an object with an '_id'")
        }
        let key = try expression(idSpec, at: "\(path)._id")
        var accumulators: [(name: String, op: String, read: (Document) -> Value?)] = []
        for (name, accumulator) in fields.sorted(by: { $0.key < $1.key }) where name != "_id" {
            if let problem = DataAPIValidation.problem(withName: name) {
                throw DataAPIValidation.invalidField(name, at: path, problem)
            }
            guard case .object(let ops) = accumulator, ops.count == 1, let first = ops.first else {
                throw APIError.badRequest("'\(path).\(name)' must be an object with one accumulator")
            }
            let (op, operand) = first
            guard ["$sum", "$avg", "$min", "$max", "$first", "$last", "$push"].contains(op) else {
                throw APIError(
                    status: .badRequest, errorCode: "UnknownOperator", code: "unknownOperator",
                    message: "unknown accumulator \(DataAPIValidation.quoted(op)) in '\(path).\(name)'; supported: "
                        + "$sum, $avg, $min, $max, $first, $last, $push")
            }
            accumulators.append((name, op, try expression(operand, at: "\(path).\(name).\(op)")))
        }
        var order: [Value] = []
        var groups: [Value: [Document]] = [:]
        for document in documents {
            let k = key(document) ?? .null
            if groups[k] == nil { order.append(k) }
            groups[k, default: []].append(document)
        }
        return order.map { k in
            let members = groups[k]!
            var out: Document = ["_id": k]
            for accumulator in accumulators {
                let values = members.map(accumulator.read)
                out[accumulator.name] = accumulate(accumulator.op, values)
            }
            return out
        }
    }

    private static func accumulate(_ op: String, _ values: [Value?]) -> Value {
        switch op {
        case "$sum", "$avg":
            var intSum: Int64 = 0
            var doubleSum = 0.0
            var isDouble = false
            var count = 0
            for case let value? in values {
                switch value {
                case .int(let v):
                    let (r, overflow) = intSum.addingReportingOverflow(v)
                    if overflow { isDouble = true; doubleSum += Double(v) } else { intSum = r }
                    count += 1
                default:
                    if let d = DataAPIValues.number(value) { doubleSum += d; isDouble = true; count += 1 }
                }
            }
            if op == "$avg" { return count == 0 ? .null : .double((Double(intSum) + doubleSum) / Double(count)) }
            return isDouble ? .double(Double(intSum) + doubleSum) : .int(intSum)
        case "$min", "$max":
            let present = values.compactMap { $0 }.filter { !$0.isNull }
            let pick = present.min { DataAPIValues.compare($0, $1) * (op == "$min" ? 1 : -1) < 0 }
            return pick ?? .null
        case "$first": return values.first.flatMap { $0 } ?? .null
        case "$last": return values.last.flatMap { $0 } ?? .null
        default: return .array(values.compactMap { $0 })
        }
    }
}
