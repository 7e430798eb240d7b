import Foundation
import OutpostCore

/// Reads the usual event upload body straight from its bytes into an ``EventBatch``, without a `JSONValue` tree
/// per event: the shape the event library sends (`_id` as `{"$oid": …}`, `timestamp` as
/// `{"$date": {"$numberLong": …}}`, every other field a string or null).
///
/// It only accepts what ``EventBatch/init(body:settings:)`` accepts, and gives the same documents; an event sent
/// in the exact form the server stores (as the event library sends it) also keeps its bytes as its stored text.
/// Anything else — another Extended JSON form, a wrong value, a bad field name, a repeated `_id`, too many events —
/// makes it return nil, and the route reads the body the general way, which names what is wrong.
struct EventBatchReader: JSONTokenReader {
    var reader: JSONReader

    /// The batch, or nil when the body is not in the usual shape or not valid.
    static func read(_ bytes: [UInt8], settings: SyncAppSettings) -> EventBatch? {
        var batch = EventBatchReader(reader: JSONReader(bytes: bytes))
        return batch.body(settings: settings)
    }

    private mutating func body(settings: SyncAppSettings) -> EventBatch? {
        guard take("{") else { return nil }
        var partition: String?
        var read: [(document: Document, text: String?)]?
        repeat {
            guard let key = string() else { return nil }
            guard take(":") else { return nil }
            switch key {
            case "partition":
                guard let value = string(), !value.isEmpty else { return nil }
                partition = value
            case "events":
                guard let events = events() else { return nil }
                read = events
            default: return nil
            }
        } while take(",")
        guard take("}") else { return nil }
        guard reader.atEnd, let partition, let events = read else { return nil }
        var documents = events.map(\.document)
        var texts = events.map(\.text)
        if let key = settings.partition?.key, settings.partition?.type == .string {
            for i in documents.indices where documents[i].fields[key] == nil {
                documents[i].fields[key] = .string(partition)
                texts[i] = nil  // the stored document has a field the upload did not
            }
        }
        return EventBatch(checked: documents, texts: texts)
    }

    private mutating func events() -> [(document: Document, text: String?)]? {
        var seen = Set<ObjectId>()
        return array(limit: EventBatch.maxEvents, reservingCapacity: EventUploadBodyEstimate.events(in: reader.bytes.count)) {
            guard let event = $0.event(), case .objectId(let id)? = event.document.fields["_id"], seen.insert(id).inserted
            else { return nil }
            return event
        }
    }

    /// One event, and its bytes as text when they are the text the server stores (``CanonicalDocumentText``).
    private mutating func event() -> (document: Document, text: String?)? {
        guard reader.peek() != nil else { return nil }
        let start = reader.index
        guard take("{") else { return nil }
        var fields: [String: Value] = [:]
        fields.reserveCapacity(8)
        var canonical = CanonicalDocumentText()
        if !take("}") {
            repeat {
                guard reader.peek() != nil else { return nil }
                let keyStart = reader.index
                guard let name = string() else { return nil }
                let keyEnd = reader.index
                guard take(":") else { return nil }
                guard !name.isEmpty, name.utf8.first != UInt8(ascii: "$"), !name.utf8.contains(UInt8(ascii: "."))
                else { return nil }
                guard reader.peek() != nil else { return nil }
                let valueStart = reader.index
                let value: Value
                switch name {
                case "_id":
                    guard let id = wrapped("$oid"), let oid = try? ObjectId(string: id) else { return nil }
                    value = .objectId(oid)
                case "timestamp":
                    guard take("{"), string() == "$date", take(":"), let text = wrapped("$numberLong"), take("}"),
                        let ms = Int64(text)
                    else { return nil }
                    value = .date(Date(timeIntervalSince1970: Double(ms) / 1000))
                default:
                    guard let next = reader.peek() else { return nil }
                    if next == UInt8(ascii: "n") {
                        guard name != "activity", case .null? = reader.parseValue() else { return nil }
                        value = .null
                    } else {
                        guard let text = string() else { return nil }
                        value = .string(text)
                    }
                }
                canonical.field(key: keyStart..<keyEnd, value: valueStart..<reader.index, parsed: value, in: reader.bytes)
                fields[name] = value
            } while take(",")
            guard take("}") else { return nil }
        }
        guard fields["_id"] != nil, fields["timestamp"] != nil, fields["activity"] != nil else { return nil }
        return (Document(fields), canonical.text(of: start..<reader.index, in: reader.bytes))
    }

    /// `{"<key>": "<text>"}`: the text.
    private mutating func wrapped(_ key: String) -> String? {
        guard take("{"), string() == key, take(":"), let text = string(), take("}") else { return nil }
        return text
    }

    private mutating func string() -> String? { reader.string() }
    private mutating func take(_ byte: Unicode.Scalar) -> Bool { reader.take(byte) }
}

/// About how many events a body of so many bytes holds (to reserve room).
private enum EventUploadBodyEstimate {
    static func events(in bytes: Int) -> Int { min(EventBatch.maxEvents, bytes / 200 + 1) }
}
