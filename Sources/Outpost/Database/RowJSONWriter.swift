import Foundation
import OutpostCore

/// Where a ``RowJSONWriter`` appends rows, and the JSON flavour their column values take there: a `[UInt8]` receives
/// Extended JSON, the sync protocol's (`RowJSONWriter+ExtendedJSON.swift`); the event library's byte writer receives
/// the event library's JSON.
protocol RowJSONOutput: ~Copyable {
    mutating func appendByte(_ byte: UInt8)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>)
    /// Whether an object leaves out a field that holds `raw`, a column of a property of `type`.
    static func omitsField(_ raw: SQLiteValue, _ type: PropertyType) -> Bool
    /// Appends `raw`, the column of a single scalar property of `type`: the JSON of its `Value` in this flavour.
    mutating func appendColumn(_ raw: SQLiteValue, _ type: PropertyType)
}

/// One field of a ``RowJSONWriter``: where its `"<name>":` (escaped) sits in the writer's keys, its column and its
/// type. Holds no reference, so that writing a row retains and releases nothing per field.
struct RowJSONField: Sendable {
    let keyStart: Int
    let keyEnd: Int
    let column: Int
    let type: PropertyType
}

/// Writes the rows of one table as JSON objects straight from their column values: one field per stored property,
/// keys sorted by stored name (as documents write them), values in the flavour of `Output`. The one row → JSON fast
/// path, behind the upload's `create` instructions and the event library's objects, which differ only in what wraps
/// the object and in their ``RowJSONOutput``; each keeps its own writer per table, for the tables it takes.
///
/// Hot path: it bypasses `Value`, the hub of the value model (docs/value-model.md), because a bulk insert's commit
/// and its write event write thousands of rows, and the general path builds a document of `Value`s (and the row's
/// storage) for each. The text is that of the general path, byte for byte (the tests compare them).
///
/// Only for tables whose stored properties are all single scalar values (no links, `AnyRealmValue`, embedded objects
/// or collections): ``init(table:)`` fails for the others. Built once per table and output, kept by the table
/// (``TableInfo/cached(_:make:)``); immutable.
final class RowJSONWriter<Output: RowJSONOutput & ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: `keyBytes` is written in `init` only and read afterwards; the rest are immutable values.

    /// Every field's `"<name>":`, one after the other (owned by the writer; read without a closure or a retain).
    private let keyBytes: UnsafeMutablePointer<UInt8>
    /// Sorted by stored name (`Property.columnName`).
    let fields: [RowJSONField]
    /// The stored names of ``fields``, in their order.
    let names: [String]
    /// The class name as a JSON string literal.
    let quotedClassName: [UInt8]
    /// The primary key's column and type (nil: the class has none).
    let primaryKey: (column: Int, type: PropertyType)?
    /// Whether the primary key is the `_id` property.
    let primaryKeyIsId: Bool

    init?(table: TableInfo) {
        var named: [(name: String, column: Int, type: PropertyType)] = []
        for (i, property) in table.schema.allProperties.enumerated() {
            guard let column = table.columnOfProperty[i] else { continue }
            guard property.collection == .none, property.type != .object, property.type != .mixed else { return nil }
            named.append((property.columnName, column, property.type))
        }
        named.sort { $0.name < $1.name }
        var keys: [UInt8] = []
        var fields: [RowJSONField] = []
        for field in named {
            let start = keys.count
            JSONValue.writeString(field.name, to: &keys)
            keys.append(UInt8(ascii: ":"))
            fields.append(RowJSONField(keyStart: start, keyEnd: keys.count, column: field.column, type: field.type))
        }
        let keyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(keys.count, 1))
        keyBytes.initialize(from: keys, count: keys.count)
        self.keyBytes = keyBytes
        self.fields = fields
        names = named.map { $0.name }
        var quoted: [UInt8] = []
        JSONValue.writeString(table.className, to: &quoted)
        quotedClassName = quoted
        let primaryKey = table.primaryKeyProperty.flatMap { index in
            table.columnOfProperty[index].map { (column: $0, type: table.schema.allProperties[index].type) }
        }
        self.primaryKey = primaryKey
        primaryKeyIsId = primaryKey != nil
            && table.primaryKeyProperty.map { table.schema.allProperties[$0].columnName == "_id" } == true
    }

    deinit { keyBytes.deallocate() }

    /// Appends the row (its column values in the table's column order) as a JSON object, without the fields
    /// `Output` leaves out.
    func writeObject(_ values: [SQLiteValue], to out: inout Output) {
        out.appendByte(UInt8(ascii: "{"))
        var first = true
        for field in fields {
            let raw = values[field.column]
            if Output.omitsField(raw, field.type) { continue }
            if first { first = false } else { out.appendByte(UInt8(ascii: ",")) }
            writeKey(field, to: &out)
            out.appendColumn(raw, field.type)
        }
        out.appendByte(UInt8(ascii: "}"))
    }

    /// Appends a field's `"<name>":`.
    @inline(__always)
    func writeKey(_ field: RowJSONField, to out: inout Output) {
        out.appendBytes(UnsafeBufferPointer(start: keyBytes + field.keyStart, count: field.keyEnd - field.keyStart))
    }
}
