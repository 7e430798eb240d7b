import OutpostCore

/// Filters, sorts and projections of Data API requests.
enum DataAPIQuery {
    /// Parses a MongoDB-style filter (`$eq $ne $gt $gte $lt $lte $in $nin $exists $and $or $nor $not`, dotted
    /// paths, Extended JSON values). A missing filter matches everything.
    static func filter(_ json: JSONValue?, name: String = "filter") throws(APIError) -> RuleExpression {
        guard let json, json != .null else { return .alwaysTrue }
        guard case .object(let fields) = json else {
            throw APIError.badRequest("'\(name)' must be an object, not \(DataAPIValidation.describe(json))")
        }
        if fields.isEmpty { return .alwaysTrue }
        do {
            return try RuleExpression.parse(json, path: name)
        } catch {
            let code = error.code == .unknownOperator ? "unknownOperator" : "invalidFilter"
            return try fail(code, "invalid '\(name)' at \(error.path.isEmpty ? name : error.path): \(error.problem)")
        }
    }

    private static func fail(_ code: String, _ message: String) throws(APIError) -> RuleExpression {
        throw APIError(
            status: .badRequest, errorCode: code == "unknownOperator" ? "UnknownOperator" : "InvalidFilter", code: code,
            message: message)
    }

    /// The top-level `_id` a filter pins down with `{"_id": v}` or `{"_id": {"$eq": v}}`, if any.
    static func pinnedId(_ json: JSONValue?) -> Value? {
        guard case .object(let fields)? = json, let id = fields["_id"] else { return nil }
        if case .object(let inner) = id, inner.keys.contains(where: { $0.hasPrefix("$") }) {
            if inner.count == 1, let eq = inner["$eq"] { return try? Value(extendedJSON: eq) }
            if inner.keys.contains(where: { $0 == "$oid" || $0 == "$uuid" || $0.hasPrefix("$number") || $0 == "$date" }) {
                return try? Value(extendedJSON: id)
            }
            return nil
        }
        return try? Value(extendedJSON: id)
    }

    /// The fields an upsert starts from: the filter's top-level equality conditions.
    static func upsertBase(_ json: JSONValue?) throws(APIError) -> Document {
        guard case .object(let fields)? = json else { return Document() }
        var base = Document()
        for (key, condition) in fields where !key.hasPrefix("$") && !key.hasPrefix("%") {
            var operand: JSONValue? = condition
            if case .object(let inner) = condition, inner.keys.contains(where: { $0.hasPrefix("$") }) {
                operand = inner.count == 1 ? inner["$eq"] : nil
                if operand == nil, pinnedExtended(inner) { operand = condition }
            }
            guard let operand else { continue }
            if case .string(let s) = operand, s.hasPrefix("%%") { continue }
            guard let value = try? Value(extendedJSON: operand) else { continue }
            try DataAPIValidation.checkFieldPath(key, in: "'filter'")
            _ = DataAPIValues.set(key, to: value, in: &base)
        }
        return base
    }

    private static func pinnedExtended(_ inner: [String: JSONValue]) -> Bool {
        inner.count == 1 && ["$oid", "$uuid", "$date", "$numberLong", "$numberInt", "$numberDouble", "$numberDecimal", "$binary"]
            .contains(inner.keys.first!)
    }

    /// A sort specification: `{"field": 1 | -1}` (one field, since JSON objects are unordered) or an array of
    /// such objects for several fields, most significant first.
    static func sort(_ json: JSONValue?, name: String = "sort") throws(APIError) -> [(path: String, ascending: Bool)] {
        guard let json, json != .null else { return [] }
        var items: [[String: JSONValue]] = []
        switch json {
        case .object(let fields):
            guard fields.count <= 1 else {
                throw APIError.badRequest(
                    "'\(name)' with several fields must be an array of one-field objects, most significant first "
                        + "(e.g. [{\"a\": 1}, {\"b\": -1}]), because JSON objects have no order")
            }
            items = [fields]
        case .array(let array):
            for (i, item) in array.enumerated() {
                guard case .object(let fields) = item, fields.count == 1 else {
                    throw APIError.badRequest("'\(name)[\(i)]' must be an object with one field")
                }
                items.append(fields)
            }
        default:
            throw APIError.badRequest("'\(name)' must be an object, not \(DataAPIValidation.describe(json))")
        }
        var keys: [(path: String, ascending: Bool)] = []
        for fields in items {
            for (path, direction) in fields {
                try DataAPIValidation.checkFieldPath(path, in: "'\(name)'")
                switch direction {
                case .int(1): keys.append((path, true))
                case .int(-1): keys.append((path, false))
                default: throw APIError.badRequest("'\(name).\(path)' must be 1 or -1")
                }
            }
        }
        return keys
    }

    static func sorted(_ documents: [Document], by keys: [(path: String, ascending: Bool)]) -> [Document] {
        guard !keys.isEmpty else { return documents }
        // Stable: ties keep their previous (primary-key) order.
        return documents.enumerated().sorted { l, r in
            for key in keys {
                let c = DataAPIValues.compare(DataAPIValues.get(key.path, in: l.element), DataAPIValues.get(key.path, in: r.element))
                if c != 0 { return key.ascending ? c < 0 : c > 0 }
            }
            return l.offset < r.offset
        }.map(\.element)
    }

    /// A projection: `{"field": 1, …}` keeps those fields (and `_id` unless `"_id": 0`); `{"field": 0, …}`
    /// drops them. Mixing inclusion and exclusion (other than `_id`) is an error.
    struct Projection: Sendable {
        var include: Bool
        var paths: [String]
        var keepId: Bool

        init?(_ json: JSONValue?, name: String = "projection") throws(APIError) {
            guard let json, json != .null else { return nil }
            guard case .object(let fields) = json else {
                throw APIError.badRequest("'\(name)' must be an object, not \(DataAPIValidation.describe(json))")
            }
            if fields.isEmpty { return nil }
            var include: Bool?
            var paths: [String] = []
            var keepId = true
            for (path, flag) in fields.sorted(by: { $0.key < $1.key }) {
                try DataAPIValidation.checkFieldPath(path, in: "'\(name)'")
                let on: Bool
                switch flag {
                case .int(1), .bool(true): on = true
                case .int(0), .bool(false): on = false
                default: throw APIError.badRequest("'\(name).\(path)' must be 1, 0, true or false")
                }
                if path == "_id" {
                    keepId = on
                    continue
                }
                if let include, include != on {
                    throw APIError.badRequest("'\(name)' cannot mix inclusion and exclusion")
                }
                include = on
                paths.append(path)
            }
            self.include = include ?? false
            self.paths = paths
            self.keepId = keepId
        }

        func apply(_ document: Document) -> Document {
            var out: Document
            if include {
                out = Document()
                for path in paths {
                    if let value = DataAPIValues.get(path, in: document) { _ = DataAPIValues.set(path, to: value, in: &out) }
                }
                if keepId { out["_id"] = document["_id"] }
            } else {
                out = document
                for path in paths { DataAPIValues.remove(path, from: &out) }
            }
            if !keepId { out["_id"] = nil }
            return out
        }
    }

    /// A non-negative integer option.
    static func count(_ json: JSONValue?, name: String) throws(APIError) -> Int? {
        guard let json, json != .null else { return nil }
        switch json {
        case .int(let v) where v >= 0: return Int(v)
        case .double(let v) where v >= 0 && v == v.rounded() && v < 1e15: return Int(v)
        default: throw APIError.badRequest("'\(name)' must be a non-negative integer")
        }
    }
}
