/// An object an audit event names: its class and its primary key as text. Outpost-only.
///
/// The key is the text the event's JSON holds, so it is the same whatever the key's type was on the device: an
/// ObjectId as its 24 lowercase hex digits, an integer as its decimal digits, a UUID as its lowercase text, a string
/// as it is (the event library writes them so; `docs/events.md`, "Serialization").
public struct AuditObjectKey: Hashable, Sendable {
    public var className: String
    public var primaryKey: String

    public init(className: String, primaryKey: String) {
        self.className = className
        self.primaryKey = primaryKey
    }
}
