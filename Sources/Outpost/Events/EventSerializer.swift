import Foundation
import OutpostCore

/// Turns recorded events into stored rows with JSON payloads: keys sorted, compact; dates as UTC ISO 8601 with
/// milliseconds (truncated); `Data` left out; UUID, ObjectId and Decimal128 as strings; links as the target's
/// primary key; embedded objects, maps and collections inline.
enum EventSerializer {
    /// The rows of a committed scope, ids generated now (so `_id` order is store order). Throws, storing nothing,
    /// when a ``CustomEventRepresentable`` returned invalid JSON.
    static func rows(for events: [RecordedEvent], activity: String, metadata: [String: String]) throws -> [StoredEvent] {
        let groups = combined(events)
        let expansion = EventLinkExpansion(recorded: events, combined: groups)
        var out: [StoredEvent] = []
        for (index, event) in groups.enumerated() {
            let type: String
            let text: String
            switch event.kind {
            case .read(let read):
                // {"type":…,"value":[…]}, the objects in rowid order (links expanded where §4.3 says).
                var data = EventJSONWriter(capacity: 4096)
                data.append("{\"type\":")
                data.appendString(read.className)
                data.append(",\"value\":[")
                for (i, rowid) in read.objects.keys.sorted().enumerated() {
                    if i > 0 { data.append(UInt8(ascii: ",")) }
                    let object = read.objects[rowid]!
                    if case .row(let format, let values) = object {
                        format.writeObject(values, to: &data)  // scalar properties only: nothing to expand
                    } else {
                        data.append(try expansion.json(object, className: read.className, rowid: rowid,
                                                       version: read.version, index: index))
                    }
                }
                data.append("]}")
                type = "read"
                text = data.text
            case .write(let payload):
                // Usually written already, on the worker when the transaction committed.
                guard let payloadText = try payload.text() else { continue }
                type = "write"
                text = payloadText
            }
            out.append(StoredEvent(id: ObjectId.generate(), timestamp: event.timestamp, activity: activity,
                                   event: type, data: text, metadata: metadata))
        }
        return out
    }

    /// Combines reads, then drops the empty ones (reference §2.3). A query read right after a query read of the same
    /// class and version joins it, and so does an object read; an object read repeating the previous object read
    /// (same class, object and version) is dropped. The rest start new groups. Then a read left with no object that
    /// existed at its version is dropped. A read that joins a query or is dropped loses its link access (§4.3).
    static func combined(_ events: [RecordedEvent]) -> [RecordedEvent] {
        var out: [RecordedEvent] = []
        var previousQuery: Int?
        var previousObject: Int?
        for event in events {
            guard case .read(let read) = event.kind else {
                out.append(event)
                continue
            }
            if let q = previousQuery, case .read(var query) = out[q].kind, query.className == read.className,
                query.version == read.version
            {
                query.objects.merge(read.objects) { first, _ in first }
                query.order += read.order
                out[q].kind = .read(query)
                continue
            }
            if read.isQuery {
                previousQuery = out.count
                previousObject = nil
            } else {
                if let o = previousObject, case .read(let last) = out[o].kind, last.className == read.className,
                    last.version == read.version, last.order == read.order
                {
                    continue
                }
                previousObject = out.count
                previousQuery = nil
            }
            out.append(event)
        }
        return out.filter { event in
            if case .read(let read) = event.kind { return !read.objects.isEmpty }
            return true
        }
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
            for (name, objects) in [("deletions", changes.deletions), ("insertions", changes.insertions)]
            where !objects.isEmpty {
                section(name)
                for (j, object) in objects.enumerated() {
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
            writeChangedFields(newFormat, old: oldValues, new: newValues, to: &out)
            out.append(",\"oldValue\":")
            oldFormat.writeObject(oldValues, to: &out)
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
            format.writeObject(values, to: &out)
        } else {
            out.append(try json(object))
        }
    }

    /// One object as JSON.
    static func json(_ object: EventObject) throws -> JSONValue {
        switch object {
        case .row(let format, let values):
            return rowJSON(format, values)
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
        // The store's own form, `YYYY-MM-DDTHH:MM:SS.mmmZ`, read directly (a formatter per row dominated uploads).
        let b = Array(text.utf8)
        if b.count == 24, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x2E,
            b[23] == 0x5A
        {
            func number(_ range: Range<Int>) -> Int? {
                var n = 0
                for i in range {
                    guard (0x30...0x39).contains(b[i]) else { return nil }
                    n = n * 10 + Int(b[i] - 0x30)
                }
                return n
            }
            if let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
                let minute = number(14..<16), let second = number(17..<19), let millis = number(20..<23),
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
            {
                var parts = tm()
                parts.tm_year = Int32(year - 1900)
                parts.tm_mon = Int32(month - 1)
                parts.tm_mday = Int32(day)
                parts.tm_hour = Int32(hour)
                parts.tm_min = Int32(minute)
                parts.tm_sec = Int32(second)
                return Date(timeIntervalSince1970: Double(timegm(&parts)) + Double(millis) / 1000)
            }
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
