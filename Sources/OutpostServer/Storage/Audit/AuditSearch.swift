/// A search of an app's indexed audit events (``AuditStorage``): every condition that is set must hold. Results come
/// newest first — by timestamp, then by event id, both descending — and a page continues after ``after``.
/// Outpost-only.
public struct AuditSearch: Hashable, Sendable {
    /// The uploader's user id or any metadata value of the event.
    public var user: String?
    public var activity: String?
    /// The event's `event` field.
    public var eventType: String?
    /// Inclusive bounds on the event's timestamp, in milliseconds since 1970.
    public var since: Int64?
    public var until: Int64?
    /// An object the event's data names.
    public var object: AuditObjectKey?
    /// Where the page starts: the events that sort after this one (older, or as old with a smaller id).
    public var after: Cursor?

    public init(
        user: String? = nil, activity: String? = nil, eventType: String? = nil, since: Int64? = nil,
        until: Int64? = nil, object: AuditObjectKey? = nil, after: Cursor? = nil
    ) {
        self.user = user
        self.activity = activity
        self.eventType = eventType
        self.since = since
        self.until = until
        self.object = object
        self.after = after
    }

    /// A position in the order of results: an event's timestamp and id.
    public struct Cursor: Hashable, Sendable {
        public var timestamp: Int64
        public var eventId: String

        public init(timestamp: Int64, eventId: String) {
            self.timestamp = timestamp
            self.eventId = eventId
        }

        /// The position of an indexed event (to continue after it).
        public init(_ entry: AuditIndexEntry) {
            self.init(timestamp: entry.timestamp, eventId: entry.eventId)
        }
    }

    /// Whether an event matches every condition but the cursor (the in-memory storage's check, and the definition
    /// the SQL of both drivers follows).
    public func matches(_ entry: AuditIndexEntry) -> Bool {
        if let user, !entry.users.contains(user) { return false }
        if let activity, entry.activity != activity { return false }
        if let eventType, entry.eventType != eventType { return false }
        if let since, entry.timestamp < since { return false }
        if let until, entry.timestamp > until { return false }
        if let object, !entry.objects.contains(object) { return false }
        return true
    }

    /// Whether an event sorts after the cursor (is on a later page than it).
    public static func sortsAfter(_ entry: AuditIndexEntry, _ cursor: Cursor) -> Bool {
        entry.timestamp < cursor.timestamp || (entry.timestamp == cursor.timestamp && entry.eventId < cursor.eventId)
    }

    /// Result order: newest first, then the larger id first.
    public static func precedes(_ a: AuditIndexEntry, _ b: AuditIndexEntry) -> Bool {
        a.timestamp != b.timestamp ? a.timestamp > b.timestamp : a.eventId > b.eventId
    }
}

extension AuditSearch {
    /// Whether no condition is set (the count is then the chain's event count, kept as events are indexed and
    /// removed, instead of a count of the whole index).
    var isUnfiltered: Bool {
        user == nil && activity == nil && eventType == nil && since == nil && until == nil && object == nil
    }
}
