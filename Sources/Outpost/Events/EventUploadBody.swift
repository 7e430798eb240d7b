import Foundation
import OutpostCore

/// The JSON body of one event upload, `{"partition": "<p>", "events": [<AuditEvent documents>]}`, written straight
/// into UTF-8 bytes (no `JSONValue` tree per event). Each document is the same Extended JSON the `Value`s would
/// give: `_id` as `{"$oid": …}`, `timestamp` as `{"$date": {"$numberLong": "<ms>"}}`, `activity`, `event` and
/// `data` as strings (`event` and `data` possibly null), and the metadata as string fields.
enum EventUploadBody {
    /// The body's bytes.
    static func bytes(partition: String, events: [StoredEvent]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + events.reduce(0) { $0 + $1.estimatedSize + 64 })
        out.append(contentsOf: #"{"partition":"#.utf8)
        JSONValue.writeString(partition, to: &out)
        out.append(contentsOf: #","events":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(event, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// One event as an `AuditEvent` document, its fields in sorted key order with no white space: the exact text
    /// the server stores for it, so the server can keep these bytes instead of writing the document again.
    static func write(_ event: StoredEvent, to out: inout [UInt8]) {
        let metadata = event.metadata.isEmpty ? [] : event.metadata.sorted { $0.key < $1.key }
        var next = 0  // the next metadata field to write
        out.append(UInt8(ascii: "{"))
        for (index, field) in FixedField.allCases.enumerated() {
            while next < metadata.count, metadata[next].key < field.rawValue {
                writeMetadata(metadata[next], to: &out)
                next += 1
            }
            if index > 0 || next > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: FixedField.keys[index])
            switch field {
            case .id:
                out.append(contentsOf: #"{"$oid":""#.utf8)
                event.id.appendHex(to: &out)
                out.append(contentsOf: #""}"#.utf8)
            case .activity: JSONValue.writeString(event.activity, to: &out)
            case .data: writeOptional(event.data, to: &out)
            case .event: writeOptional(event.event, to: &out)
            case .timestamp:
                out.append(contentsOf: #"{"$date":{"$numberLong":""#.utf8)
                JSONValue.writeInt(event.timestamp.millisecondsSince1970, to: &out)
                out.append(contentsOf: #""}}"#.utf8)
            }
        }
        while next < metadata.count {
            writeMetadata(metadata[next], to: &out)
            next += 1
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The fields every event has, in sorted key order.
    private enum FixedField: String, CaseIterable {
        case id = "_id", activity, data, event, timestamp

        /// `"<name>":` of each case, in order.
        static let keys: [[UInt8]] = allCases.map { Array("\"\($0.rawValue)\":".utf8) }
    }

    /// `,"<key>":"<value>"` (metadata always follows a fixed field or another metadata field, except before `_id`).
    private static func writeMetadata(_ entry: (key: String, value: String), to out: inout [UInt8]) {
        if out.last != UInt8(ascii: "{") { out.append(UInt8(ascii: ",")) }
        JSONValue.writeString(entry.key, to: &out)
        out.append(UInt8(ascii: ":"))
        JSONValue.writeString(entry.value, to: &out)
    }

    private static func writeOptional(_ string: String?, to out: inout [UInt8]) {
        if let string { JSONValue.writeString(string, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }
}
