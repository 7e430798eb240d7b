import Foundation

/// What the server indexes of one stored `AuditEvent` document, taken from it when it is ingested
/// (``AuditExtractor``), so that searches read the index and not the documents. Outpost-only.
///
/// Storages keep it in their audit tables (docs/storage-server.md, "Audit index"): one row per event, one per value
/// a user search can match (``users``) and one per object the event names (``objects``).
public struct AuditIndexEntry: Hashable, Sendable {
    /// The event's `_id`, as 24 lowercase hex digits.
    public var eventId: String
    /// The event's `timestamp`, in milliseconds since 1970.
    public var timestamp: Int64
    /// The user whose access token uploaded the event, when known.
    public var userId: String?
    /// The event's `activity`.
    public var activity: String
    /// The event's `event` field (`read`, `write` or a custom type), or nil.
    public var eventType: String?
    /// The distinct texts a search by user matches: the uploader's id and the event's metadata values.
    public var users: [String]
    /// The distinct objects the event names, in the order its data names them first.
    public var objects: [AuditObjectKey]

    public init(
        eventId: String, timestamp: Int64, userId: String?, activity: String, eventType: String?, users: [String],
        objects: [AuditObjectKey]
    ) {
        self.eventId = eventId
        self.timestamp = timestamp
        self.userId = userId
        self.activity = activity
        self.eventType = eventType
        self.users = users
        self.objects = objects
    }
}
