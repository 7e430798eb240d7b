import Foundation
import OutpostCore

/// How the objects of a class whose properties are all single scalar values (no links, `AnyRealmValue` or
/// collections) appear in events, written straight from their column values: the fields in sorted key order, each
/// with its JSON key prefix. Gives the same text as the general path (`syncDocument` → ``EventSerializer``), which
/// serves every other class and classes conforming to ``CustomEventRepresentable``.
///
/// Built once per table (``TableInfo/eventRowFormat``); immutable.
final class EventRowFormat: Sendable {
    struct Field: Sendable {
        let name: String
        /// `"<name>":`, escaped.
        let key: String
        let column: Int
        let type: PropertyType

        /// The field as the general path sees it: nil when it is left out (a non-null `Data`).
        func json(_ raw: SQLiteValue) -> JSONValue? {
            EventSerializer.json(SyncValues.scalar(ValueCoding.scalar(raw, type: type)))
        }
    }

    let className: String
    /// Sorted by stored name (`Property.columnName`), as payloads name fields.
    let fields: [Field]

    init?(table: TableInfo) {
        if let type = table.objectType, type is CustomEventRepresentable.Type { return nil }
        var fields: [(name: String, field: Field)] = []
        for (i, property) in table.schema.allProperties.enumerated() {
            guard let column = table.columnOfProperty[i] else { continue }
            guard property.collection == .none, property.type != .object, property.type != .mixed else { return nil }
            var key = ""
            JSONValue.writeString(property.columnName, to: &key)
            key += ":"
            fields.append((property.columnName,
                           Field(name: property.columnName, key: key, column: column, type: property.type)))
        }
        self.className = table.className
        self.fields = fields.sorted { $0.name < $1.name }.map(\.field)
    }

    /// The object as JSON text (as `EventSerializer.json(_:)` of its document, then `text`).
    func write(_ values: [SQLiteValue], to out: inout EventJSONWriter) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for field in fields {
            Self.write(field, values[field.column], &first, &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The fields of `new` whose JSON differs from `old`'s (a modification's `newValue`).
    func writeChanges(old: [SQLiteValue], new: [SQLiteValue], to out: inout EventJSONWriter) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for field in fields {
            let before = old[field.column], after = new[field.column]
            if before == after { continue }  // equal columns give equal JSON
            if let changed = Self.jsonDiffers(field.type, before, after) {
                if changed { Self.write(field, after, &first, &out) }
                continue
            }
            guard let json = field.json(after), field.json(before) != json else { continue }
            Self.key(field, &first, &out)
            out.append(json)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Whether two different column values of a field give different JSON, for the types ``write`` writes itself
    /// (nil for the others, which the general path compares).
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

    /// One field, `"<name>":<value>`, unless it is left out (a non-null `Data`).
    @inline(__always)
    private static func write(_ field: Field, _ raw: SQLiteValue, _ first: inout Bool, _ out: inout EventJSONWriter) {
        switch (field.type, raw) {
        case (_, .null):
            key(field, &first, &out)
            out.append("null")
        case (.int, .integer(let v)):
            key(field, &first, &out)
            out.appendInt(v)
        case (.bool, .integer(let v)):
            key(field, &first, &out)
            out.append(v != 0 ? "true" : "false")
        case (.string, .text(let v)):
            key(field, &first, &out)
            out.appendString(v)
        case (.objectId, .blob(let bytes)) where bytes.count == 12:
            key(field, &first, &out)
            out.appendObjectIdHex(bytes)
        case (.date, .real(let v)):
            key(field, &first, &out)
            out.append(UInt8(ascii: "\""))
            out.appendTimestamp(Date(timeIntervalSinceReferenceDate: v))
            out.append(UInt8(ascii: "\""))
        case (.data, .blob):
            return  // non-null Data is left out
        default:
            guard let json = field.json(raw) else { return }
            key(field, &first, &out)
            out.append(json)
        }
    }

    /// The object as a JSON value (for modifications whose other side took the general path).
    func json(_ values: [SQLiteValue]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for field in fields {
            guard let json = field.json(values[field.column]) else { continue }
            object[field.name] = json
        }
        return .object(object)
    }

    @inline(__always)
    private static func key(_ field: Field, _ first: inout Bool, _ out: inout EventJSONWriter) {
        if first { first = false } else { out.append(UInt8(ascii: ",")) }
        out.append(field.key)
    }
}

extension TableInfo {
    /// How events write this table's objects straight from their column values; nil when they take the general
    /// path (links, collections, `AnyRealmValue`, `CustomEventRepresentable`). Built on first use, kept by the table.
    var eventRowFormat: EventRowFormat? {
        cached(EventRowFormat.self) { EventRowFormat(table: $0) }
    }
}
