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

    /// One event as an `AuditEvent` document.
    static func write(_ event: StoredEvent, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"_id":{"$oid":""#.utf8)
        out.append(contentsOf: event.id.stringValue.utf8)
        out.append(contentsOf: #""},"timestamp":{"$date":{"$numberLong":""#.utf8)
        JSONValue.writeInt(Int64((event.timestamp.timeIntervalSince1970 * 1000).rounded(.down)), to: &out)
        out.append(contentsOf: #""}},"activity":"#.utf8)
        JSONValue.writeString(event.activity, to: &out)
        out.append(contentsOf: #","event":"#.utf8)
        writeOptional(event.event, to: &out)
        out.append(contentsOf: #","data":"#.utf8)
        writeOptional(event.data, to: &out)
        for (key, value) in event.metadata {
            out.append(UInt8(ascii: ","))
            JSONValue.writeString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONValue.writeString(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func writeOptional(_ string: String?, to out: inout [UInt8]) {
        if let string { JSONValue.writeString(string, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }
}
