import Foundation
import OutpostCore

/// The canonical text of a document's primary key, as both drivers store it in the `pk_key` column.
///
/// It is the key's compact Extended JSON text (`"abc"`, `42`, `{"$oid":"…"}`, `{"$uuid":"…"}`): one text per
/// value, readable in a SQL shell, and different for values of different types (`1` and `"1"`). Text order is
/// not primary-key order (`10` sorts before `9`), so listings sort with ``areInIncreasingOrder(_:_:)``.
package enum PrimaryKeyText {
    /// The `pk_key` text of a primary key.
    package static func make(_ primaryKey: Value) -> String {
        guard case .objectId(let id) = primaryKey else { return primaryKey.extendedJSONText }
        // The usual key, written straight into its string (`{"$oid":"<24 hex digits>"}`, as `extendedJSONText`
        // writes it) without an intermediate buffer: every uploaded object's key is written at least twice.
        let prefix: StaticString = #"{"$oid":""#
        let length = prefix.utf8CodeUnitCount + 24 + 2
        return String(unsafeUninitializedCapacity: length) { buffer in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            prefix.withUTF8Buffer { raw.copyMemory(from: UnsafeRawBufferPointer($0)) }
            id.writeHex(into: UnsafeMutableRawBufferPointer(rebasing: raw[prefix.utf8CodeUnitCount...]))
            raw[length - 2] = UInt8(ascii: "\"")
            raw[length - 1] = UInt8(ascii: "}")
            return length
        }
    }

    /// The primary key of a document: its `_id` field.
    package static func primaryKey(of document: Document) throws -> Value {
        guard let id = document["_id"] else {
            throw StorageError(.invalidDocument, "a stored document needs an '_id' field")
        }
        return id
    }

    /// Documents sorted by their `_id` in primary-key order.
    package static func sortedByPrimaryKey(_ documents: [Document]) -> [Document] {
        documents.sorted { areInIncreasingOrder($0["_id"] ?? .null, $1["_id"] ?? .null) }
    }

    /// Primary-key order: by type first (null, numbers, strings, object ids, UUIDs, anything else), then by value.
    package static func areInIncreasingOrder(_ lhs: Value, _ rhs: Value) -> Bool {
        let (lr, rr) = (rank(lhs), rank(rhs))
        if lr != rr { return lr < rr }
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return a < b
        case (.string(let a), .string(let b)): return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
        case (.objectId(let a), .objectId(let b)): return a < b
        case (.uuid(let a), .uuid(let b)): return a.uuidString.lowercased() < b.uuidString.lowercased()
        default:
            if let a = number(lhs), let b = number(rhs) { return a < b }
            return make(lhs) < make(rhs)
        }
    }

    private static func rank(_ value: Value) -> Int {
        switch value {
        case .null: 0
        case .int, .float, .double, .decimal128: 1
        case .string: 2
        case .objectId: 3
        case .uuid: 4
        default: 5
        }
    }

    private static func number(_ value: Value) -> Double? {
        switch value {
        case .int(let v): Double(v)
        case .float(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }
}
