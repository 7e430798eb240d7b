import Foundation
import OutpostCore

/// Events write the objects of a class whose properties are all single scalar values (no links, `AnyRealmValue` or
/// collections) with its table's ``RowJSONWriter`` into event JSON, straight from their column values: the same text
/// as the general path (`syncDocument` → ``EventSerializer``), which serves every other class and the classes
/// conforming to ``CustomEventRepresentable``.
typealias EventRowWriter = RowJSONWriter<EventJSONWriter>

extension TableInfo {
    /// How events write this table's objects straight from their column values; nil when they take the general
    /// path (links, collections, `AnyRealmValue`, `CustomEventRepresentable`). Built on first use, kept by the table.
    var eventRowFormat: EventRowWriter? {
        cached(EventRowWriter.self) { table in
            if let type = table.objectType, type is CustomEventRepresentable.Type { return nil }
            return EventRowWriter(table: table)
        }
    }
}

extension EventSerializer {
    /// A row's object as a JSON value (for modifications whose other side took the general path), as `json(_:)`
    /// gives the object's document.
    static func rowJSON(_ writer: EventRowWriter, _ values: [SQLiteValue]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (field, name) in zip(writer.fields, writer.names) {
            guard let json = columnJSON(values[field.column], field.type) else { continue }
            object[name] = json
        }
        return .object(object)
    }

    /// A field as the general path sees it: nil when it is left out (a non-null `Data`).
    static func columnJSON(_ raw: SQLiteValue, _ type: PropertyType) -> JSONValue? {
        json(raw.value(type: type))
    }

    /// The fields of the `new` row whose JSON differs from the `old` row's, as an object (a modification's
    /// `newValue`).
    static func writeChangedFields(_ writer: EventRowWriter, old: [SQLiteValue], new: [SQLiteValue],
                                   to out: inout EventJSONWriter) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for field in writer.fields {
            let before = old[field.column], after = new[field.column]
            if before == after { continue }  // equal columns give equal JSON
            if let changed = jsonDiffers(field.type, before, after) {
                guard changed else { continue }
                if first { first = false } else { out.append(UInt8(ascii: ",")) }
                writer.writeKey(field, to: &out)
                out.appendColumn(after, field.type)
                continue
            }
            guard let json = columnJSON(after, field.type), columnJSON(before, field.type) != json else { continue }
            if first { first = false } else { out.append(UInt8(ascii: ",")) }
            writer.writeKey(field, to: &out)
            out.append(json)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Whether two different column values of a field give different JSON, for the types the writer writes straight
    /// from the column (nil for the others, compared through their JSON).
    @inline(__always)
    private static func jsonDiffers(_ type: PropertyType, _ before: SQLiteValue, _ after: SQLiteValue) -> Bool? {
        switch (type, before, after) {
        case (.int, .integer, .integer), (.string, .text, .text):
            return true
        case (.bool, .integer(let a), .integer(let b)):
            return (a != 0) != (b != 0)
        case (.objectId, .blob(let a), .blob(let b)):
            return a.count == 12 && b.count == 12 ? true : nil
        case (.date, .real(let a), .real(let b)):
            return EventJSONWriter.timestampMillis(Date(timeIntervalSinceReferenceDate: a))
                != EventJSONWriter.timestampMillis(Date(timeIntervalSinceReferenceDate: b))
        case (.int, .null, .integer), (.int, .integer, .null), (.string, .null, .text), (.string, .text, .null),
            (.bool, .null, .integer), (.bool, .integer, .null), (.date, .null, .real), (.date, .real, .null):
            return true
        case (.objectId, .null, .blob(let bytes)), (.objectId, .blob(let bytes), .null):
            return bytes.count == 12 ? true : nil
        default:
            return nil
        }
    }
}
