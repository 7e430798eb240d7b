import Foundation
import OutpostCore

/// A `[UInt8]` receives Extended JSON from a ``RowJSONWriter``: each column as `Value.writeExtendedJSON(to:)` writes
/// its value, no field left out.
///
/// Hot path (the upload's creates, see ``RowJSONWriter``): integers, booleans, strings, ObjectIds and dates, most
/// columns, are written straight from the column; the rarer types go through their `Value`.
extension Array: RowJSONOutput where Element == UInt8 {
    mutating func appendByte(_ byte: UInt8) {
        append(byte)
    }

    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(contentsOf: bytes)
    }

    static func omitsField(_ raw: SQLiteValue, _ type: PropertyType) -> Bool { false }

    mutating func appendColumn(_ raw: SQLiteValue, _ type: PropertyType) {
        switch (type, raw) {
        case (_, .null):
            append(contentsOf: "null".utf8)
        case (.int, .integer(let v)):
            JSONValue.writeInt(v, to: &self)
        case (.bool, .integer(let v)):
            append(contentsOf: (v != 0 ? "true" : "false").utf8)
        case (.string, .text(let v)):
            JSONValue.writeString(v, to: &self)
        case (.objectId, .blob(let bytes)) where bytes.count == 12:
            append(contentsOf: #"{"$oid":""#.utf8)
            ObjectId.appendHex(of: bytes, to: &self)
            append(contentsOf: #""}"#.utf8)
        case (.date, .real(let v)):
            append(contentsOf: #"{"$date":{"$numberLong":""#.utf8)
            JSONValue.writeInt(Date(timeIntervalSinceReferenceDate: v).millisecondsSince1970, to: &self)
            append(contentsOf: #""}}"#.utf8)
        default:
            // Floating point, data, decimals and UUIDs: through their value (rare enough per row).
            raw.value(type: type).writeExtendedJSON(to: &self)
        }
    }
}
