import CSQLite
import Foundation
import OutpostCore

/// `outpost_mixed_cmp(a, b)`: compares two `AnyRealmValue`s in their stored form (tagged JSON text, see
/// docs/storage.md) as realm-core compares mixed values in queries: numbers of any type by value, strings by their
/// bytes, data, dates, ObjectIds, UUIDs and booleans among their own kind, links and nested collections only for
/// equality. -1, 0 or 1; NULL when the two cannot be compared (so `==` and ordering are false and `!=` is true).
enum MixedCompareFunction {
    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, "outpost_mixed_cmp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, argv in
            guard let argv, let a = sqlite3_value_text(argv[0]), let b = sqlite3_value_text(argv[1]),
                let order = MixedCompareFunction.compare(String(cString: a), String(cString: b))
            else {
                sqlite3_result_null(context)
                return
            }
            sqlite3_result_int(context, Int32(order))
        }, nil, nil, nil)
    }

    /// What a stored mixed value is, for comparing.
    enum Item {
        case null
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case decimal(Decimal128)
        case string(String)
        case binary(Data)
        case date(Double)
        case objectId(String)
        case uuid(String)
        /// A link or a nested collection: its stored text, equal only to the same text.
        case identity(String)
    }

    static func compare(_ a: String, _ b: String) -> Int? {
        guard let x = item(a), let y = item(b) else { return nil }
        switch (x, y) {
        case (.null, .null): return 0
        case let (.bool(l), .bool(r)): return order(l ? 1 : 0, r ? 1 : 0)
        case let (.string(l), .string(r)): return bytes(Array(l.utf8), Array(r.utf8))
        case let (.binary(l), .binary(r)): return bytes(Array(l), Array(r))
        case let (.date(l), .date(r)): return order(l, r)
        case let (.objectId(l), .objectId(r)), let (.uuid(l), .uuid(r)): return order(l, r)
        case let (.identity(l), .identity(r)): return l == r ? 0 : nil
        case let (.int(l), .int(r)): return order(l, r)
        default:
            guard let l = number(x), let r = number(y) else { return nil }
            if case .decimal = x { return decimalOrder(l, r) }
            if case .decimal = y { return decimalOrder(l, r) }
            return order(l.double, r.double)
        }
    }

    /// The stored text decoded as ``ValueCoding/mixed(_:link:)-(JSONValue,_)`` reads it; links and nested collections
    /// stay their text (equal only to the same text). Nil for text that is no stored mixed value.
    static func item(_ text: String) -> Item? {
        guard let json = JSONValue.parse(text) else { return nil }
        if case .object(let fields) = json, fields.count == 1, fields["$link"] != nil { return .identity(text) }
        switch ValueCoding.mixed(json, link: { (_: String, _: Int64) in nil }) {
        case .null: return json == .null ? .null : nil  // an unknown tag decodes as null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .float(let v): return .double(Double(v))
        case .string(let v): return .string(v)
        case .decimal128(let v): return .decimal(v)
        case .data(let v): return .binary(v)
        case .date(let v): return .date(v.timeIntervalSinceReferenceDate)
        case .objectId(let v): return .objectId(v.stringValue)
        case .uuid(let v): return .uuid(v.uuidString.lowercased())
        case .object, .list, .dictionary: return .identity(text)
        }
    }

    private struct Number {
        var double: Double
        var decimal: Decimal128
    }

    private static func number(_ item: Item) -> Number? {
        switch item {
        case .int(let v): Number(double: Double(v), decimal: Decimal128(v))
        case .double(let v): Number(double: v, decimal: Decimal128(v))
        case .decimal(let v): Number(double: v.doubleValue, decimal: v)
        default: nil
        }
    }

    private static func decimalOrder(_ l: Number, _ r: Number) -> Int? {
        if l.decimal.isNaN || r.decimal.isNaN { return nil }
        return l.decimal < r.decimal ? -1 : (l.decimal == r.decimal ? 0 : 1)
    }

    private static func order<T: Comparable>(_ l: T, _ r: T) -> Int { l < r ? -1 : (l == r ? 0 : 1) }

    private static func bytes(_ l: [UInt8], _ r: [UInt8]) -> Int {
        l == r ? 0 : (l.lexicographicallyPrecedes(r) ? -1 : 1)
    }
}
