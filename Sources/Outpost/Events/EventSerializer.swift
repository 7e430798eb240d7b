import Foundation
import OutpostCore

/// Turns recorded events into stored rows with JSON payloads: keys sorted, compact; dates as UTC ISO 8601 with
/// milliseconds (truncated); `Data` left out; UUID, ObjectId and Decimal128 as strings; links as the target's
/// primary key; embedded objects, maps and collections inline.
enum EventSerializer {
    /// The rows of a committed scope, ids generated now (so `_id` order is store order). Throws, storing nothing,
    /// when a ``CustomEventRepresentable`` returned invalid JSON.
    static func rows(for events: [RecordedEvent], activity: String, metadata: [String: String]) throws -> [StoredEvent] {
        var out: [StoredEvent] = []
        for event in combined(events) {
            let type: String
            var data = EventJSONWriter(capacity: 4096)
            switch event.kind {
            case .read(let className, _, let objects, _, _):
                // {"type":…,"value":[…]}, the objects in rowid order.
                data.append("{\"type\":")
                data.appendString(className)
                data.append(",\"value\":[")
                for (i, rowid) in objects.keys.sorted().enumerated() {
                    if i > 0 { data.append(UInt8(ascii: ",")) }
                    try write(objects[rowid]!, to: &data)
                }
                data.append("]}")
                type = "read"
            case .write(let classes):
                guard try writePayload(classes, to: &data) else { continue }
                type = "write"
            }
            out.append(StoredEvent(id: ObjectId.generate(), timestamp: event.timestamp, activity: activity,
                                   event: type, data: data.text, metadata: metadata))
        }
        return out
    }

    /// Combines consecutive reads (reference §2.3): a read of the same class at the same version right after a
    /// query joins that query; an object read repeating the previous object read is dropped.
    static func combined(_ events: [RecordedEvent]) -> [RecordedEvent] {
        var out: [RecordedEvent] = []
        for event in events {
            if case .read(let className, let version, let objects, let order, let isQuery) = event.kind,
                let last = out.last, case .read(let lastClass, let lastVersion, let lastObjects, let lastOrder, let lastIsQuery) = last.kind,
                lastClass == className, lastVersion == version
            {
                if lastIsQuery {
                    out[out.count - 1].kind = .read(className: className, version: version,
                        objects: lastObjects.merging(objects) { a, _ in a }, order: lastOrder + order, isQuery: true)
                    continue
                }
                if !isQuery && order == lastOrder { continue }
            }
            if case .read(_, _, let objects, _, _) = event.kind, objects.isEmpty { continue }
            out.append(event)
        }
        return out
    }

    /// `{"<Class>": {"insertions": […], "deletions": […], "modifications": [{"oldValue", "newValue"}]}}` (keys
    /// sorted), appended to `out`; false, appending nothing, when the transaction changed nothing reportable.
    static func writePayload(_ classes: [String: EventWriteChanges], to out: inout EventJSONWriter) throws -> Bool {
        let names = classes.keys.filter { !classes[$0]!.isEmpty }.sorted()
        guard !names.isEmpty else { return false }
        out.append(UInt8(ascii: "{"))
        for (i, className) in names.enumerated() {
            let changes = classes[className]!
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.appendString(className)
            out.append(":{")
            var first = true
            func section(_ name: String) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append("\"\(name)\":[")
            }
            if !changes.deletions.isEmpty {
                section("deletions")
                for (j, object) in changes.deletions.enumerated() {
                    if j > 0 { out.append(UInt8(ascii: ",")) }
                    try write(object, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
            if !changes.insertions.isEmpty {
                section("insertions")
                for (j, object) in changes.insertions.enumerated() {
                    if j > 0 { out.append(UInt8(ascii: ",")) }
                    try write(object, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
            if !changes.modifications.isEmpty {
                section("modifications")
                for (j, (old, new)) in changes.modifications.enumerated() {
                    if j > 0 { out.append(UInt8(ascii: ",")) }
                    try writeModification(old: old, new: new, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return true
    }

    /// `{"newValue":{the fields whose JSON changed},"oldValue":{…}}`.
    static func writeModification(old: EventObject, new: EventObject, to out: inout EventJSONWriter) throws {
        if case .row(let oldFormat, let oldValues) = old, case .row(let newFormat, let newValues) = new,
            oldFormat === newFormat
        {
            out.append("{\"newValue\":")
            newFormat.writeChanges(old: oldValues, new: newValues, to: &out)
            out.append(",\"oldValue\":")
            oldFormat.write(oldValues, to: &out)
            out.append(UInt8(ascii: "}"))
            return
        }
        let oldValue = try json(old)
        var newValue = try json(new)
        if case .object(let oldFields) = oldValue, case .object(let newFields) = newValue {
            newValue = .object(newFields.filter { oldFields[$0.key] != $0.value })
        }
        out.append(JSONValue.object(["oldValue": oldValue, "newValue": newValue]))
    }

    /// One object as JSON text.
    static func write(_ object: EventObject, to out: inout EventJSONWriter) throws {
        if case .row(let format, let values) = object {
            format.write(values, to: &out)
        } else {
            out.append(try json(object))
        }
    }

    /// One object as JSON.
    static func json(_ object: EventObject) throws -> JSONValue {
        switch object {
        case .row(let format, let values):
            return format.json(values)
        case .document(let document):
            return json(document)
        case .custom(let className, let text):
            guard let value = JSONValue.parse(text) else {
                throw Realm.Error(.fail,
                    "[json.exception.parse_error.101] parse error: customEventRepresentation() of a '\(className)' "
                        + "object returned invalid JSON")
            }
            return value
        }
    }

    static func json(_ document: OutpostCore.Document) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        for (key, value) in document.fields {
            if let v = json(value) { fields[key] = v }
        }
        return .object(fields)
    }

    /// A value as JSON; nil for a non-null `Data`, which is left out of objects (and is `null` in collections).
    static func json(_ value: Value) -> JSONValue? {
        switch value {
        case .null: .null
        case .bool(let v): .bool(v)
        case .int(let v): .int(v)
        case .float(let v): .double(Double(v))
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data: nil
        case .date(let v): .string(timestamp(v))
        case .objectId(let v): .string(v.stringValue)
        case .decimal128(let v): .string(v.stringValue)
        case .uuid(let v): .string(v.uuidString.lowercased())
        case .array(let items): .array(items.map { json($0) ?? .null })
        case .document(let d): json(d)
        case .link(_, let primaryKey): json(primaryKey) ?? .null
        }
    }

    // MARK: Dates

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, UTC, milliseconds truncated.
    static func timestamp(_ date: Date) -> String {
        var writer = EventJSONWriter(capacity: 24)
        writer.appendTimestamp(date)
        return writer.text
    }

    /// Parses a stored timestamp.
    static func date(fromTimestamp text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
