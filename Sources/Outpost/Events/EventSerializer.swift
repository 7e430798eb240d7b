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
            let (type, data): (String, JSONValue)
            switch event.kind {
            case .read(let className, _, let objects, _, _):
                let value = try objects.keys.sorted().map { try json(objects[$0]!) }
                (type, data) = ("read", .object(["type": .string(className), "value": .array(value)]))
            case .write(let classes):
                guard let payload = try writePayload(classes) else { continue }
                (type, data) = ("write", payload)
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

    /// `{"<Class>": {"insertions": […], "deletions": […], "modifications": [{"oldValue", "newValue"}]}}`, nil when
    /// the transaction changed nothing reportable.
    static func writePayload(_ classes: [String: EventWriteChanges]) throws -> JSONValue? {
        var root: [String: JSONValue] = [:]
        for (className, changes) in classes where !changes.isEmpty {
            var entry: [String: JSONValue] = [:]
            if !changes.insertions.isEmpty { entry["insertions"] = .array(try changes.insertions.map(json)) }
            if !changes.deletions.isEmpty { entry["deletions"] = .array(try changes.deletions.map(json)) }
            if !changes.modifications.isEmpty {
                entry["modifications"] = .array(try changes.modifications.map { old, new in
                    let oldValue = try json(old)
                    var newValue = try json(new)
                    if case .object(let oldFields) = oldValue, case .object(let newFields) = newValue {
                        newValue = .object(newFields.filter { oldFields[$0.key] != $0.value })
                    }
                    return .object(["oldValue": oldValue, "newValue": newValue])
                })
            }
            root[className] = .object(entry)
        }
        return root.isEmpty ? nil : .object(root)
    }

    /// One object as JSON.
    static func json(_ object: EventObject) throws -> JSONValue {
        switch object {
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
        // The tiny bias keeps values like 1.678 s (stored as 1.67799999…) at 678 ms.
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000 + 1e-4).rounded(.down))
        var seconds = totalMillis / 1000
        var millis = totalMillis % 1000
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(millis))
    }

    /// Parses a stored timestamp.
    static func date(fromTimestamp text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
