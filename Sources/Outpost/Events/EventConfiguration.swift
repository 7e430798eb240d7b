import Foundation

/// Turns on event recording (the Event Library) for a Realm, as Realm Swift's `EventConfiguration`.
///
/// ```swift
/// var config = user.configuration(partitionValue: "Some partition value")
/// config.eventConfiguration = EventConfiguration()
/// ```
///
/// Set it on ``Realm/Configuration/eventConfiguration``; any non-nil value switches recording on. The configuration
/// is checked when the Realm opens, and an invalid one makes `Realm(configuration:)` throw.
@frozen
public struct EventConfiguration: Sendable {
    /// Key/value pairs added to every event as extra string fields. `nil` means no metadata.
    public var metadata: [String: String]?
    /// The user whose event store uploads the events. When nil, the audited Realm's sync user is used (a local
    /// Realm then keeps its events on the device only).
    public var syncUser: User?
    /// Goes in front of the event partition values (`<prefix>-<ObjectId>`) and names the store's directory.
    public var partitionPrefix: String
    /// Receives the event library's log lines (prefixed `Events: `), at every level. When nil, the event user's
    /// sync manager logger is used.
    public var logger: (@Sendable (SyncLogLevel, String) -> Void)?
    /// Called with errors from uploading event data. When nil, errors are logged and a fatal one aborts the
    /// process, as in Realm.
    public var errorHandler: (@Sendable (Error) -> Void)?
    /// Outpost-only: the size in bytes past which the event store starts a new shard file (default 256 MiB).
    public var maxShardSize: Int = 256 * 1024 * 1024

    /// Creates an event configuration; every argument has a default, so `EventConfiguration()` is valid.
    public init(
        metadata: [String: String]? = nil, syncUser: User? = nil, partitionPrefix: String = "events",
        logger: (@Sendable (SyncLogLevel, String) -> Void)? = nil, errorHandler: (@Sendable (Error) -> Void)? = nil
    ) {
        self.metadata = metadata
        self.syncUser = syncUser
        self.partitionPrefix = partitionPrefix
        self.logger = logger
        self.errorHandler = errorHandler
    }

    /// The names every event has; metadata keys may not reuse them.
    static let reservedKeys: Set<String> = ["_id", "timestamp", "activity", "event", "data"]

    /// Checks the prefix and the metadata keys, with Realm's messages.
    func validate() throws {
        if partitionPrefix.isEmpty {
            throw Realm.Error(.invalidInput, "Audit partition prefix must not be empty")
        }
        if partitionPrefix.contains("/") || partitionPrefix.contains("\\") {
            throw Realm.Error(.invalidInput,
                "Invalid audit partition prefix '\(partitionPrefix)': prefix must not contain slashes")
        }
        if maxShardSize <= 0 {
            throw Realm.Error(.invalidInput,
                "Invalid event shard size limit \(maxShardSize): maxShardSize must be a positive number of bytes")
        }
        try Self.validate(metadata: metadata ?? [:])
    }

    static func validate(metadata: [String: String]) throws {
        for key in metadata.keys.sorted() {
            if key.isEmpty || key.utf8.count > 63 {
                throw Realm.Error(.invalidInput, "Invalid audit metadata key '\(key)': keys must be 1-63 characters long")
            }
            if reservedKeys.contains(key) {
                throw Realm.Error(.invalidInput,
                    "Invalid audit metadata key '\(key)': metadata keys cannot overlap with the audit event properties")
            }
        }
    }
}
