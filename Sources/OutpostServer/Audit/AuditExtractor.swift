import Foundation
import OutpostCore

/// Takes from an `AuditEvent` document what the audit index keeps (``AuditIndexEntry``): who, what activity, which
/// type, when, and which objects its data names. Pure: the same document and uploader always give the same entry.
///
/// **Objects.** `data` is parsed as JSON when it is a string, and objects are read from the two shapes the event
/// library writes (`docs/events.md`, "What is recorded"):
/// - a read, `{"type": "<Class>", "value": [{…}, …]}`: each element of `value`;
/// - a write, `{"<Class>": {"insertions": […], "deletions": […], "modifications": [{"oldValue": {…},
///   "newValue": {…}}]}}`: each insertion and deletion, and each modification's `oldValue` (the whole object before; `newValue` holds only
///   the changed fields, so it is read only when `oldValue` has no key).
///
/// An object's key is its `_id` field, or the field `events.primary_keys` names for its class; the key must be a
/// string or an integer (the forms the library writes keys in: ObjectIds, UUIDs and strings as strings, integers as
/// numbers). Objects nested inside those (expanded links, embedded objects) are not indexed: each followed link is a
/// read event of its own. Data that is not JSON, or JSON of another shape (custom events), names no object.
///
/// **Users.** The uploader's user id and every string field other than the fixed ones (`_id`, `timestamp`,
/// `activity`, `event`, `data`) and the partition key: the event library's metadata.
///
/// **Bounds.** A value longer than ``maxIndexedBytes`` or holding U+0000 (which PostgreSQL's `text` cannot hold) is not
/// indexed: searches take values up to that size, so such a value could not be asked for anyway.
struct AuditExtractor: Sendable {
    /// The partition key field the server adds to events of a partition-based app (not metadata).
    var partitionKey: String?
    /// Per class, the field that holds the primary key when it is not `_id`.
    var primaryKeys: [String: String] = [:]

    /// The longest user value, class name or key text that is indexed (and that a search may give).
    static let maxIndexedBytes = 1024
    static let fixedFields: Set<String> = ["_id", "timestamp", "activity", "event", "data"]

    init(partitionKey: String? = nil, primaryKeys: [String: String] = [:]) {
        self.partitionKey = partitionKey
        self.primaryKeys = primaryKeys
    }

    init(app: AppDefinition) {
        self.init(partitionKey: app.sync.partition?.key, primaryKeys: app.events.primaryKeys)
    }

    /// The entry of a checked event document (an ObjectId `_id`, a date `timestamp`, a string `activity`), or nil for
    /// a document without them.
    func entry(of document: Document, uploader: String?) -> AuditIndexEntry? {
        guard case .objectId(let id)? = document["_id"], case .date(let date)? = document["timestamp"],
            case .string(let activity)? = document["activity"]
        else { return nil }
        var eventType: String?
        if case .string(let type)? = document["event"] { eventType = Self.storable(type) }
        var users: [String] = []
        func addUser(_ value: String) {
            if Self.isIndexable(value), !users.contains(value) { users.append(value) }
        }
        if let uploader { addUser(uploader) }
        var metadata: [(key: String, value: String)] = []
        for (key, value) in document.fields {
            guard case .string(let text) = value, !Self.isFixedField(key), key != partitionKey else { continue }
            metadata.append((key, text))
        }
        for (_, value) in metadata.sorted(by: { $0.key < $1.key }) { addUser(value) }
        var objects: [AuditObjectKey] = []
        if case .string(let data)? = document["data"] {
            var reader = AuditDataReader(data) { primaryKeys[$0] ?? "_id" }
            objects = reader.objects().filter { Self.isIndexable($0.className) && Self.isIndexable($0.primaryKey) }
        }
        return AuditIndexEntry(
            eventId: id.stringValue, timestamp: date.millisecondsSince1970, userId: uploader.map(Self.storable),
            activity: Self.storable(activity), eventType: eventType, users: users, objects: objects)
    }

    /// Whether a field is one of ``fixedFields`` (a comparison of short texts: cheaper than hashing each key).
    static func isFixedField(_ key: String) -> Bool {
        switch key {
        case "_id", "timestamp", "activity", "event", "data": true
        default: false
        }
    }

    /// Whether a value is indexed: not empty, at most ``maxIndexedBytes``, no U+0000.
    static func isIndexable(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= maxIndexedBytes && !containsNul(value)
    }

    /// A value stored in an index column that must hold one (activity, type, uploader): U+0000 replaced by U+FFFD.
    static func storable(_ value: String) -> String {
        containsNul(value) ? value.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : value
    }

    private static func containsNul(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { utf8 in utf8.count > 0 && memchr(utf8.baseAddress!, 0, utf8.count) != nil }
    }
}
