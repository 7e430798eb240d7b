import Foundation
import OutpostCore

/// One checked event upload: the `AuditEvent` documents of one shard, each with an ObjectId `_id`, a date
/// `timestamp`, a string `activity`, optional string `event` and `data`, and optional string metadata fields — and
/// nothing else; a partition-based app's partition key is set to the shard's partition value. Building it throws a bad-request error naming the first wrong value.
struct EventBatch: Sendable {
    let documents: [Document]
    /// Each document's Extended JSON text (``Document/extendedJSONText``) when the upload carried it as it is;
    /// nil where the server writes it.
    let texts: [String?]

    static let collection = "AuditEvent"
    /// The most events one upload may carry.
    static let maxEvents = 10_000

    /// Documents already checked (``EventBatchReader``), with the texts it kept.
    init(checked documents: [Document], texts: [String?]) {
        precondition(texts.count == documents.count)
        self.documents = documents
        self.texts = texts
    }

    init(body: [String: JSONValue], settings: SyncAppSettings) throws(APIError) {
        for key in body.keys.sorted() where key != "partition" && key != "events" {
            throw APIError.badRequest("unknown field '\(key)' in an event upload (expected 'partition' and 'events')")
        }
        guard case .string(let partition)? = body["partition"], !partition.isEmpty else {
            throw APIError.badRequest("'partition' must be a non-empty string (the shard's \"<prefix>-<ObjectId>\")")
        }
        guard case .array(let items)? = body["events"] else {
            throw APIError.badRequest("'events' must be an array of AuditEvent documents")
        }
        guard items.count <= Self.maxEvents else {
            throw APIError.badRequest("an event upload may carry at most \(Self.maxEvents) events, not \(items.count)")
        }
        var documents: [Document] = []
        documents.reserveCapacity(items.count)
        var seen = Set<ObjectId>()
        for (index, item) in items.enumerated() {
            var document = try Self.parse(item, index: index)
            if case .objectId(let id)? = document["_id"], !seen.insert(id).inserted {
                throw APIError.badRequest("'events[\(index)]._id' repeats an earlier event's _id \(id.stringValue)")
            }
            // A partition-based app's partition key holds the shard's partition on every event (as in Realm).
            if let key = settings.partition?.key, settings.partition?.type == .string, document[key] == nil {
                document[key] = .string(partition)
            }
            documents.append(document)
        }
        self.documents = documents
        self.texts = Array(repeating: nil, count: documents.count)
    }

    /// One event: the fixed fields with their types, metadata as strings. The usual forms (strings, null, `_id` as
    /// `{"$oid": …}`, `timestamp` as `{"$date": {"$numberLong": …}}`) are read directly; anything else goes through
    /// `Value(extendedJSON:)`, and paths for error messages are only made for a value that is wrong.
    static func parse(_ json: JSONValue, index: Int) throws(APIError) -> Document {
        guard case .object(let fields) = json else {
            throw APIError.badRequest("'events[\(index)]' must be an AuditEvent document, not \(json.kindDescription)")
        }
        var document = Document()
        document.fields.reserveCapacity(fields.count)
        for name in fields.keys.sorted() {
            let raw = fields[name]!
            let value: Value
            if let direct = directValue(raw, name: name) {
                value = direct
            } else {
                do { value = try Value(extendedJSON: raw, path: "events[\(index)].\(name)") } catch {
                    throw APIError.badRequest(error.message)
                }
            }
            let expected: String?
            switch (name, value) {
            case ("_id", .objectId), ("timestamp", .date), ("activity", .string): expected = nil
            case ("_id", _): expected = "an ObjectId"
            case ("timestamp", _): expected = "a date"
            case ("activity", _): expected = "a string"
            case (_, .string), (_, .null): expected = nil
            default: expected = "a string or null"
            }
            if let expected {
                throw APIError.badRequest("'events[\(index)].\(name)' must be \(expected), not \(raw.kindDescription)")
            }
            // (Bytes, not `String.contains`: Foundation's search cost a tenth of a whole upload.)
            if name.isEmpty || name.utf8.first == UInt8(ascii: "$") || name.utf8.contains(UInt8(ascii: ".")) {
                throw APIError.badRequest("'events[\(index)]' has an invalid field name '\(name)'")
            }
            document.fields[name] = value
        }
        for required in ["_id", "timestamp", "activity"] where document.fields[required] == nil {
            throw APIError.badRequest("'events[\(index)]' has no '\(required)'")
        }
        return document
    }

    /// The value of the usual forms, the same `Value(extendedJSON:)` reads; nil for any other (read the slow way).
    private static func directValue(_ raw: JSONValue, name: String) -> Value? {
        switch raw {
        case .string(let s): return .string(s)
        case .null: return .null
        case .object(let fields) where fields.count == 1:
            if name == "_id", case .string(let text)? = fields["$oid"], let id = try? ObjectId(string: text) {
                return .objectId(id)
            }
            if name == "timestamp", case .object(let inner)? = fields["$date"], inner.count == 1,
                case .string(let text)? = inner["$numberLong"], let ms = Int64(text)
            {
                return .date(Date(timeIntervalSince1970: Double(ms) / 1000))
            }
            return nil
        default: return nil
        }
    }
}
