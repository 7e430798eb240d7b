import CSQLite
import Foundation

/// The `BASE64BYTES` collation: `Data` inside a list, set or map is stored as base64 text, whose order is not the
/// bytes' order; this collation compares the decoded bytes, so sorting and deduplicating a collection of `Data`
/// follow Realm's order (byte by byte, a prefix first).
enum Base64BytesCollation {
    static let name = "BASE64BYTES"

    static func register(on db: OpaquePointer) {
        sqlite3_create_collation_v2(db, name, SQLITE_UTF8, nil, { _, lhsCount, lhs, rhsCount, rhs in
            Base64BytesCollation.compare(
                Base64BytesCollation.decode(lhs, Int(lhsCount)), Base64BytesCollation.decode(rhs, Int(rhsCount)))
        }, nil)
    }

    private static func decode(_ pointer: UnsafeRawPointer?, _ count: Int) -> Data? {
        guard let pointer else { return nil }
        return Data(base64Encoded: Data(UnsafeRawBufferPointer(start: pointer, count: count)))
    }

    /// Byte order; text that is not base64 (never written by Outpost) sorts first.
    static func compare(_ a: Data?, _ b: Data?) -> Int32 {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case let (a?, b?):
            if a == b { return 0 }
            return a.lexicographicallyPrecedes(b) ? -1 : 1
        }
    }
}
