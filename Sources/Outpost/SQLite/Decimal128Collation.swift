import CSQLite
import Foundation
import OutpostCore

/// The `DECIMAL128` collation: Decimal128 values are stored as their canonical text, and this
/// collation compares them numerically, so `=`, `<`, `ORDER BY` and indexes on a Decimal128
/// column follow Decimal128 order (NaN sorts first, as in Realm).
enum Decimal128Collation {
    static let name = "DECIMAL128"

    static func register(on db: OpaquePointer) {
        sqlite3_create_collation_v2(db, name, SQLITE_UTF8, nil, { _, lhsCount, lhs, rhsCount, rhs in
            let a = Decimal128Collation.decode(lhs, Int(lhsCount))
            let b = Decimal128Collation.decode(rhs, Int(rhsCount))
            return Decimal128Collation.compare(a, b)
        }, nil)
    }

    private static func decode(_ ptr: UnsafeRawPointer?, _ count: Int) -> Decimal128? {
        guard let ptr else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(start: ptr, count: count), as: UTF8.self)
        return try? Decimal128(string: text)
    }

    static func compare(_ a: Decimal128?, _ b: Decimal128?) -> Int32 {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case let (a?, b?):
            if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? 0 : (a.isNaN ? -1 : 1) }
            return a < b ? -1 : (a == b ? 0 : 1)
        }
    }
}
