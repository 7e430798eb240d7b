import Foundation

extension QueryEvaluator {
    /// `lhs op rhs` for two single values (`BETWEEN` is handled by the caller; `IN` means `==`).
    static func compare(_ lhs: Value, _ op: ComparisonOperator, _ rhs: Value, options: StringOptions) -> Bool {
        var lhs = lhs
        var rhs = rhs
        if case .link(let leftClass, let leftKey) = lhs, case .link(let rightClass, let rightKey) = rhs,
           leftClass != rightClass {
            return op == .notEqual && !(leftKey.isNull && rightKey.isNull)
        }
        if case .link(_, let key) = lhs { lhs = key }
        if case .link(_, let key) = rhs { rhs = key }
        switch op {
        case .equal, .in: return equal(lhs, rhs, options: options)
        case .notEqual: return !equal(lhs, rhs, options: options)
        case .lessThan: return order(lhs, rhs).map { $0 < 0 } ?? false
        // Two nulls are equal, so `<=` and `>=` hold between them (realm-core: `dog.age >= dog.age` without a dog).
        case .lessThanOrEqual: return order(lhs, rhs).map { $0 <= 0 } ?? (lhs.isNull && rhs.isNull)
        case .greaterThan: return order(lhs, rhs).map { $0 > 0 } ?? false
        case .greaterThanOrEqual: return order(lhs, rhs).map { $0 >= 0 } ?? (lhs.isNull && rhs.isNull)
        case .beginsWith, .endsWith, .contains, .like: return stringOperator(lhs, op, rhs, options: options)
        case .between, .geoWithin: return false
        }
    }

    static func equal(_ lhs: Value, _ rhs: Value, options: StringOptions) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let a), .string(let b)):
            return fold(a, options).unicodeScalars.elementsEqual(fold(b, options).unicodeScalars)
        default:
            if let order = numericOrder(lhs, rhs) { return order == 0 }
            return lhs == rhs
        }
    }

    /// -1, 0 or 1 for two values of comparable types; nil when they cannot be ordered (or are null).
    static func order(_ lhs: Value, _ rhs: Value) -> Int? {
        if let order = numericOrder(lhs, rhs) { return order }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return lexicographic(Array(a.utf8), Array(b.utf8))
        case (.data(let a), .data(let b)): return lexicographic(Array(a), Array(b))
        case (.date(let a), .date(let b)): return sign(a, b)
        case (.objectId(let a), .objectId(let b)): return sign(a, b)
        case (.uuid(let a), .uuid(let b)): return lexicographic(bytes(a), bytes(b))
        default: return nil
        }
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (b < a ? 1 : 0) }

    private static func lexicographic(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.lexicographicallyPrecedes(b) ? -1 : (b.lexicographicallyPrecedes(a) ? 1 : 0)
    }

    private static func bytes(_ uuid: UUID) -> [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    // MARK: - Numbers

    /// Orders two numbers of any numeric type; nil if either is not a number or one is NaN.
    static func numericOrder(_ lhs: Value, _ rhs: Value) -> Int? {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return sign(a, b)
        case (.decimal128, _), (_, .decimal128):
            guard let a = decimal(lhs), let b = decimal(rhs) else { return nil }
            return sign(a, b)
        case (.float(let a), .float(let b)): return floatingOrder(a, b)
        case (.float(let a), .double(let b)): return floatingOrder(a, Float(b))
        case (.double(let a), .float(let b)): return floatingOrder(Float(a), b)
        case (.double(let a), .double(let b)): return floatingOrder(a, b)
        case (.float(let a), .int(let b)): return order(Double(a), b)
        case (.double(let a), .int(let b)): return order(a, b)
        case (.int(let a), .float(let b)): return order(Double(b), a).map { -$0 }
        case (.int(let a), .double(let b)): return order(b, a).map { -$0 }
        default: return nil
        }
    }

    /// NaN equals NaN (so `x == nan` finds NaN) but is otherwise unordered.
    private static func floatingOrder<F: BinaryFloatingPoint>(_ a: F, _ b: F) -> Int? {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN ? 0 : nil }
        return sign(a, b)
    }

    /// Exact order of a double and an integer.
    private static func order(_ double: Double, _ integer: Int64) -> Int? {
        if double.isNaN { return nil }
        if double < -9.223372036854775808e18 { return -1 }
        if double >= 9.223372036854775808e18 { return 1 }
        let whole = double.rounded(.down)
        let truncated = Int64(whole)
        if truncated != integer { return truncated < integer ? -1 : 1 }
        return double == whole ? 0 : 1
    }

    static func decimal(_ value: Value) -> Decimal128? {
        switch value {
        case .int(let int): Decimal128(Int(int))
        case .float(let float) where float.isFinite: Decimal128(Double(float))
        case .double(let double) where double.isFinite: Decimal128(double)
        case .decimal128(let decimal): decimal
        default: nil
        }
    }

    // MARK: - Strings

    static func fold(_ string: String, _ options: StringOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? string : string.folding(options: folding, locale: nil)
    }

    private static func stringOperator(
        _ lhs: Value, _ op: ComparisonOperator, _ rhs: Value, options: StringOptions
    ) -> Bool {
        switch (lhs, rhs) {
        case (_, .null): return lhs.isNull
        case (.string(let a), .string(let b)):
            let haystack = fold(a, options)
            let needle = fold(b, options)
            if op == .like { return QueryWildcard.matches(Array(haystack), pattern: Array(needle)) }
            return bytesOperator(Array(haystack.utf8), op, Array(needle.utf8))
        case (.data(let a), .data(let b)):
            return op != .like && bytesOperator(Array(a), op, Array(b))
        default:
            return false
        }
    }

    private static func bytesOperator(_ haystack: [UInt8], _ op: ComparisonOperator, _ needle: [UInt8]) -> Bool {
        switch op {
        case .beginsWith: return haystack.starts(with: needle)
        case .endsWith: return haystack.reversed().starts(with: needle.reversed())
        default:
            if needle.isEmpty { return true }
            guard needle.count <= haystack.count else { return false }
            for start in 0...(haystack.count - needle.count)
            where haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return true
            }
            return false
        }
    }

    // MARK: - Aggregates

    /// `@sum` (0 when empty), `@avg`, `@min`, `@max` (null when empty) over the non-null elements.
    static func aggregate(_ aggregate: QueryKeyPath.Aggregate, of elements: [Value]) throws(QueryError) -> Value {
        let values = elements.filter { !$0.isNull }
        switch aggregate {
        case .min, .max:
            var best: Value?
            for value in values {
                guard let current = best else {
                    best = value
                    continue
                }
                guard let order = order(value, current) else {
                    throw QueryError(.typeMismatch,
                        "\(aggregate.rawValue) cannot compare a \(value.typeName) with a \(current.typeName)")
                }
                if aggregate == .min ? order < 0 : order > 0 { best = value }
            }
            return best ?? .null
        case .sum, .avg:
            var intSum: Int64? = 0
            var doubleSum = 0.0
            var hasDecimal = false
            for value in values {
                switch value {
                case .int(let int):
                    if let sum = intSum {
                        let (result, overflow) = sum.addingReportingOverflow(int)
                        intSum = overflow ? nil : result
                    }
                    doubleSum += Double(int)
                case .float(let float): intSum = nil; doubleSum += Double(float)
                case .double(let double): intSum = nil; doubleSum += double
                case .decimal128(let decimal): intSum = nil; hasDecimal = true; doubleSum += decimal.doubleValue
                default: throw QueryError(.typeMismatch, "\(aggregate.rawValue) cannot add a \(value.typeName)")
                }
            }
            if aggregate == .avg {
                guard !values.isEmpty else { return .null }
                let average = doubleSum / Double(values.count)
                return hasDecimal ? .decimal128(Decimal128(average)) : .double(average)
            }
            if hasDecimal { return .decimal128(Decimal128(doubleSum)) }
            if let intSum { return .int(intSum) }
            return .double(doubleSum)
        case .count, .size:
            return .int(Int64(values.count))
        }
    }
}
