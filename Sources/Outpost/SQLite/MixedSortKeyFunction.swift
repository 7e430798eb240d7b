import CSQLite
import Foundation
import OutpostCore

/// `outpost_mixed_sort_key(json)`: a blob whose byte order is realm-core's sort order of mixed values, for sorting a
/// collection of `AnyRealmValue` (`sorted(ascending:)`, sectioned results). realm-core ranks the kinds (null, bool,
/// numbers of any type by value, strings by their bytes, data, dates, ObjectIds, UUIDs, links, collections) and
/// orders values within a kind; SQLite alone would order by storage class and the tagged JSON text.
enum MixedSortKeyFunction {
    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, "outpost_mixed_sort_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, argv in
            guard let argv, let text = sqlite3_value_text(argv[0]) else {
                sqlite3_result_null(context)
                return
            }
            let key = MixedSortKeyFunction.key(String(cString: text))
            key.withUnsafeBytes { bytes in
                sqlite3_result_blob(context, bytes.baseAddress, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            }
        }, nil, nil, nil)
    }

    /// The SQL of the sort key of a `json_each` element `alias` of a mixed collection (its JSON text: booleans are
    /// plain 1 and 0 in `value`, so their type tells them from integers).
    static func sql(element alias: String) -> String {
        "outpost_mixed_sort_key(CASE \(alias).type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' "
            + "ELSE json_quote(\(alias).value) END)"
    }

    /// realm-core's rank of the kind, then the value in an order-preserving form.
    static func key(_ text: String) -> [UInt8] {
        guard let item = MixedCompareFunction.item(text) else { return [0] }
        switch item {
        case .null: return [0]
        case .bool(let v): return [1, v ? 1 : 0]
        case .int(let v): return [2] + ordered(Double(v)) + ordered(v)
        case .double(let v): return [2] + ordered(v) + ordered(Int64(clamping: v))
        case .decimal(let v): return [2] + ordered(v.doubleValue) + ordered(Int64(clamping: v.doubleValue))
        case .string(let v): return [3] + Array(v.utf8)
        case .binary(let v): return [4] + Array(v)
        case .date(let v): return [5] + ordered(v)
        case .objectId(let v): return [6] + Array(v.utf8)
        case .uuid(let v): return [7] + Array(v.utf8)
        case .identity(let v): return [8] + Array(v.utf8)
        }
    }

    /// A double's bits made to sort bytewise as the numbers do (NaN first).
    private static func ordered(_ d: Double) -> [UInt8] {
        if d.isNaN { return Array(repeating: 0, count: 8) }
        let bits = d.bitPattern
        let flipped = d.sign == .minus ? ~bits : bits | (1 << 63)
        return withUnsafeBytes(of: flipped.bigEndian, Array.init)
    }

    /// An integer made to sort bytewise (the sign bit flipped), the tie-break of integers a double cannot tell apart.
    private static func ordered(_ i: Int64) -> [UInt8] {
        withUnsafeBytes(of: (UInt64(bitPattern: i) ^ (1 << 63)).bigEndian, Array.init)
    }
}

private extension Int64 {
    init(clamping d: Double) {
        self = d.isNaN ? 0 : d >= 9.2e18 ? .max : d <= -9.2e18 ? .min : Int64(d)
    }
}
