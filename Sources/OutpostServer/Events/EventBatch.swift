import Foundation
import OutpostCore

/// One checked event upload: the `AuditEvent` documents of one shard, each with an ObjectId `_id`, a date
/// `timestamp`, a string `activity`, optional string `event` and `data`, and optional string metadata fields — and
/// nothing else; a partition-based app's partition key is set to the shard's partition value. Building it throws a bad-request error naming the first wrong value.
struct EventBatch: Sendable {
    let documents: [Document]

    static let collection = "AuditEvent"
    /// The most events one upload may carry.
    static let maxEvents = 10_000

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
            var document = try Self.parse(item, at: "events[\(index)]")
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
    }

    /// One event: the fixed fields with their types, metadata as strings.
    static func parse(_ json: JSONValue, at path: String) throws(APIError) -> Document {
        guard case .object(let fields) = json else {
            throw APIError.badRequest("'\(path)' must be an AuditEvent document, not \(json.kindDescription)")
        }
        var document = Document()
        for name in fields.keys.sorted() {
            let raw = fields[name]!
            let value: Value
            do { value = try Value(extendedJSON: raw, path: "\(path).\(name)") } catch {
                throw APIError.badRequest(error.message)
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
                throw APIError.badRequest("'\(path).\(name)' must be \(expected), not \(raw.kindDescription)")
            }
            if name.isEmpty || name.hasPrefix("$") || name.contains(".") {
                throw APIError.badRequest("'\(path)' has an invalid field name '\(name)'")
            }
            document[name] = value
        }
        for required in ["_id", "timestamp", "activity"] where document[required] == nil {
            throw APIError.badRequest("'\(path)' has no '\(required)'")
        }
        return document
    }
}
