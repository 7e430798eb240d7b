import Foundation
import OutpostCore

/// How the upload's `create` instruction of an object of a class whose stored properties are all single scalar
/// values (no links, `AnyRealmValue`, embedded objects or collections) is written straight from its column values:
/// the same bytes as `SyncInstruction.create(…, fields: syncDocument(…)).writeJSON`, without building the
/// document, its values or the object's row storage. Every other class takes that general path.
///
/// Built once per table (``TableInfo/syncCreateFormat``); immutable.
final class SyncCreateFormat: Sendable {
    /// One field: where its `"<name>":` (escaped) sits in ``keys``, its column and its type. Holds no reference,
    /// so that writing an object's fields retains and releases nothing per field.
    struct Field: Sendable {
        let keyStart: Int
        let keyEnd: Int
        let column: Int
        let type: PropertyType
    }

    /// `{"class":"<class>","fields":{`
    private let prefix: [UInt8]
    /// Every field's `"<name>":`, one after the other.
    private let keys: [UInt8]
    /// Sorted by property name, as documents write their keys.
    let fields: [Field]
    /// The primary key's column and type (nil: the class has none, and `pk` is null).
    private let primaryKey: (column: Int, type: PropertyType)?
    /// Whether the primary key is the `_id` property (always with sync): then `pk` is not written.
    private let primaryKeyIsId: Bool

    init?(table: TableInfo) {
        guard !table.schema.isEmbedded else { return nil }
        var named: [(name: String, column: Int, type: PropertyType)] = []
        for (i, property) in table.schema.allProperties.enumerated() {
            guard let column = table.columnOfProperty[i] else { continue }
            guard property.collection == .none, property.type != .object, property.type != .mixed else { return nil }
            named.append((property.columnName, column, property.type))
        }
        var keys: [UInt8] = []
        var fields: [Field] = []
        for field in named.sorted(by: { $0.name < $1.name }) {
            let start = keys.count
            JSONValue.writeString(field.name, to: &keys)
            keys.append(UInt8(ascii: ":"))
            fields.append(Field(keyStart: start, keyEnd: keys.count, column: field.column, type: field.type))
        }
        self.keys = keys
        self.fields = fields
        var prefix: [UInt8] = Array(#"{"class":"#.utf8)
        JSONValue.writeString(table.className, to: &prefix)
        prefix.append(contentsOf: #","fields":{"#.utf8)
        self.prefix = prefix
        primaryKey = table.primaryKeyProperty.flatMap { index in
            table.columnOfProperty[index].map { ($0, table.schema.allProperties[index].type) }
        }
        primaryKeyIsId = primaryKey != nil && table.primaryKeyProperty.map { table.schema.allProperties[$0].columnName == "_id" } == true
    }

    /// Appends the object's `create` instruction.
    func writeCreate(_ values: [SQLiteValue], to out: inout [UInt8]) {
        out.append(contentsOf: prefix)
        keys.withUnsafeBufferPointer { keys in
            fields.withUnsafeBufferPointer { fields in
                for i in fields.indices {
                    let field = fields[i]
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: keys[field.keyStart..<field.keyEnd]))
                    Self.write(values[field.column], field.type, to: &out)
                }
            }
        }
        // The key is left out when it is the `_id` field just written (`SyncInstruction.createOmitsPrimaryKey`).
        if primaryKeyIsId {
            out.append(contentsOf: #"},"op":"create"}"#.utf8)
            return
        }
        out.append(contentsOf: #"},"op":"create","pk":"#.utf8)
        if let primaryKey {
            Self.write(values[primaryKey.column], primaryKey.type, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// One column value as the Extended JSON of its protocol value (`Value.writeExtendedJSON`).
    @inline(__always)
    private static func write(_ raw: SQLiteValue, _ type: PropertyType, to out: inout [UInt8]) {
        switch (type, raw) {
        case (_, .null):
            out.append(contentsOf: "null".utf8)
        case (.int, .integer(let v)):
            JSONValue.writeInt(v, to: &out)
        case (.bool, .integer(let v)):
            out.append(contentsOf: (v != 0 ? "true" : "false").utf8)
        case (.string, .text(let v)):
            JSONValue.writeString(v, to: &out)
        case (.objectId, .blob(let bytes)) where bytes.count == 12:
            out.append(contentsOf: #"{"$oid":""#.utf8)
            ObjectId.appendHex(of: bytes, to: &out)
            out.append(contentsOf: #""}"#.utf8)
        case (.date, .real(let v)):
            out.append(contentsOf: #"{"$date":{"$numberLong":""#.utf8)
            let date = Date(timeIntervalSinceReferenceDate: v)
            JSONValue.writeInt(date.millisecondsSince1970, to: &out)
            out.append(contentsOf: #""}}"#.utf8)
        default:
            // Floating point, data, decimals and UUIDs: the general conversion (rare enough per object).
            SyncValues.scalar(ValueCoding.scalar(raw, type: type)).writeExtendedJSON(to: &out)
        }
    }
}

extension TableInfo {
    /// How the upload writes this table's new objects straight from their column values; nil when they take the
    /// general path (links, collections, `AnyRealmValue`, embedded objects). Built on first use, kept by the table.
    var syncCreateFormat: SyncCreateFormat? {
        cached(SyncCreateFormat.self) { SyncCreateFormat(table: $0) }
    }
}
