/// Which kind of sync a session uses.
public enum SyncMode: String, Hashable, Sendable {
    case flexible
    case partition
}

/// A position in the server's history as one client file has downloaded it: the server version, and the last
/// client version of that file the server had integrated at that point.
public struct DownloadCursor: Hashable, Sendable {
    public var serverVersion: Int64
    public var clientVersion: Int64
    /// The salt of the server changeset at `serverVersion` (the server derives it from that changeset): a file
    /// whose cursor salt differs from the server's has downloaded a history the server no longer has (it was
    /// restored from a backup) and must reset. nil when not known (version 0, or a cursor from before salts).
    public var salt: Int64?

    public init(serverVersion: Int64, clientVersion: Int64, salt: Int64? = nil) {
        self.serverVersion = serverVersion
        self.clientVersion = clientVersion
        self.salt = salt
    }

    public static let start = DownloadCursor(serverVersion: 0, clientVersion: 0)
}

/// A flexible-sync subscription set as it travels: its version and one query text per class.
public struct SubscriptionQuery: Hashable, Sendable {
    public var version: Int64
    /// Class name → query text. A class's several subscriptions are combined as `(q1) OR (q2)` by the client.
    public var queries: [String: String]

    public init(version: Int64, queries: [String: String]) {
        self.version = version
        self.queries = queries
    }
}

/// One committed client transaction, uploaded.
public struct UploadChangeset: Hashable, Sendable {
    /// The transaction's version in the client's history (increasing from 1).
    public var clientVersion: Int64
    /// The last server version the client had integrated when it made the transaction.
    public var lastServerVersion: Int64
    /// When it was committed, in milliseconds since 1970.
    public var timestamp: Int64
    public var instructions: [SyncInstruction] {
        didSet { createTexts = [] }
    }
    /// For each instruction, when it is a `create` whose `fields` came in the upload as exactly their
    /// ``Document/extendedJSONText``: that text, which the server stores as it came; empty when none did. Only the
    /// server's upload reader fills it in (``UploadMessageReader``); it is a by-product of reading, not part of the
    /// changeset's value (equality and hashing ignore it), and changing ``instructions`` clears it.
    package var createTexts: [String?] = []

    public init(clientVersion: Int64, lastServerVersion: Int64, timestamp: Int64, instructions: [SyncInstruction]) {
        self.clientVersion = clientVersion
        self.lastServerVersion = lastServerVersion
        self.timestamp = timestamp
        self.instructions = instructions
    }

    public static func == (lhs: UploadChangeset, rhs: UploadChangeset) -> Bool {
        lhs.clientVersion == rhs.clientVersion && lhs.lastServerVersion == rhs.lastServerVersion
            && lhs.timestamp == rhs.timestamp && lhs.instructions == rhs.instructions
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(clientVersion)
        hasher.combine(lastServerVersion)
        hasher.combine(timestamp)
        hasher.combine(instructions)
    }
}

/// One server changeset as a client receives it, already filtered to the client's view.
public struct DownloadChangeset: Hashable, Sendable {
    public var serverVersion: Int64
    /// The client file it came from (0 for the server itself); equal to the receiver's own ident for its own
    /// changes, which come back in their integrated form.
    public var originFileIdent: Int64
    public var originClientVersion: Int64
    public var timestamp: Int64
    public var instructions: [DownloadInstruction]

    public init(
        serverVersion: Int64, originFileIdent: Int64, originClientVersion: Int64, timestamp: Int64,
        instructions: [DownloadInstruction]
    ) {
        self.serverVersion = serverVersion
        self.originFileIdent = originFileIdent
        self.originClientVersion = originClientVersion
        self.timestamp = timestamp
        self.instructions = instructions
    }
}

/// Where a download message stands in a flexible-sync bootstrap.
public enum DownloadBatchState: String, Hashable, Sendable {
    /// Part of a bootstrap; more batches follow. Keep it until the last one arrives.
    case moreToCome = "more"
    /// The last batch of a bootstrap: apply all batches of the query version at once.
    case lastInBatch = "last"
    /// An ordinary download outside any bootstrap.
    case steadyState = "steady"
}

/// One write the server refused, as reported with error 231.
public struct RejectedUpdate: Hashable, Sendable, Codable {
    /// The class name.
    public var table: String
    public var primaryKey: Value
    public var reason: String

    public init(table: String, primaryKey: Value, reason: String) {
        self.table = table
        self.primaryKey = primaryKey
        self.reason = reason
    }
}
