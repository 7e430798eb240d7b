import Foundation
import OutpostCore

/// The upload's `create` instruction of a new object written by its table's ``RowJSONWriter`` straight from its column
/// values: the same bytes as `SyncInstruction.create(…, fields: syncDocument(…)).writeJSON`, without building the
/// document, its values or the object's row storage. Every other class takes that general path.
extension RowJSONWriter where Output == [UInt8] {
    /// Appends the object's `create` instruction.
    func writeCreate(_ values: [SQLiteValue], to out: inout [UInt8]) {
        out.append(contentsOf: #"{"class":"#.utf8)
        out.append(contentsOf: quotedClassName)
        out.append(contentsOf: #","fields":"#.utf8)
        writeObject(values, to: &out)
        // The key is left out when it is the `_id` field just written (`SyncInstruction.createOmitsPrimaryKey`).
        if primaryKeyIsId {
            out.append(contentsOf: #","op":"create"}"#.utf8)
            return
        }
        out.append(contentsOf: #","op":"create","pk":"#.utf8)
        if let primaryKey {
            out.appendColumn(values[primaryKey.column], primaryKey.type)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension TableInfo {
    /// How the upload writes this table's new objects straight from their column values; nil when they take the
    /// general path (links, collections, `AnyRealmValue`, embedded objects). Built on first use, kept by the table.
    var syncCreateFormat: RowJSONWriter<[UInt8]>? {
        cached(RowJSONWriter<[UInt8]>.self) { $0.schema.isEmbedded ? nil : RowJSONWriter<[UInt8]>(table: $0) }
    }
}
