import Foundation
import OutpostCore

/// How a Realm syncs: the user, and either a partition value (Partition-Based Sync) or flexible sync with
/// subscriptions. Made by `user.configuration(partitionValue:)` or `user.flexibleSyncConfiguration()`.
public struct SyncConfiguration: @unchecked Sendable {  // the initial-subscriptions block runs on open only
    /// The user the Realm syncs as.
    public let user: User
    /// The partition value (Partition-Based Sync); nil for flexible sync.
    public let partitionValue: AnyBSON?
    /// Whether the Realm uses flexible sync (subscriptions) instead of a partition.
    public let enableFlexibleSync: Bool
    /// How a client reset is handled. Outpost keeps the setting; see docs/sync-client.md for what it does.
    public var clientResetMode: ClientResetMode
    /// Whether an asynchronous open gives up on the first non-fatal error (for example a timeout) instead of
    /// retrying.
    public var cancelAsyncOpenOnNonFatalErrors: Bool
    /// Subscriptions added when the file is created (or on every open with `rerunOnOpen`).
    public var initialSubscriptions: ((SyncSubscriptionSet) -> Void)?
    /// Run `initialSubscriptions` on every open, not only when the file is created.
    public var rerunOnOpen: Bool
    /// Outpost-only: refuse, at commit, a write to an object that matches none of its class's subscriptions
    /// (instead of letting the server revert it with a compensating write). Off by default, as in Realm.
    public var rejectsWritesOutsideSubscriptions: Bool = false
    /// How many bytes of held-back download messages (a bootstrap's batches) the session keeps parsed in memory;
    /// the messages after those wait in the file (``HeldDownloads``). One full download message's worth by default:
    /// a large bootstrap then costs the memory of two messages, not of all of them. Internal: tests lower it.
    var heldDownloadMemoryLimit = SyncProtocolLimits.maxDownloadBytes

    init(user: User, partitionValue: AnyBSON?, enableFlexibleSync: Bool, clientResetMode: ClientResetMode,
         cancelAsyncOpenOnNonFatalErrors: Bool, initialSubscriptions: ((SyncSubscriptionSet) -> Void)? = nil,
         rerunOnOpen: Bool = false) {
        self.user = user
        self.partitionValue = partitionValue
        self.enableFlexibleSync = enableFlexibleSync
        self.clientResetMode = clientResetMode
        self.cancelAsyncOpenOnNonFatalErrors = cancelAsyncOpenOnNonFatalErrors
        self.initialSubscriptions = initialSubscriptions
        self.rerunOnOpen = rerunOnOpen
    }

    /// The partition value in the protocol's value form.
    var partitionProtocolValue: Value? {
        partitionValue.map(Self.protocolValue(ofPartition:))
    }

    /// A partition value in the protocol's value form (`.null` for the BSON types outpost-server does not store).
    static func protocolValue(ofPartition bson: AnyBSON) -> Value {
        (try? BSONConversion.value(bson, path: "partitionValue")) ?? .null
    }
}

/// What happens when the server requires a client reset (Realm's options).
public enum ClientResetMode: @unchecked Sendable {
    /// Replace the local file with the server's copy, then re-apply unsynced local changes (Realm's default).
    case recoverUnsyncedChanges(beforeReset: ((Realm) -> Void)? = nil, afterReset: ((Realm, Realm) -> Void)? = nil)
    /// Recover, or discard when recovery is not possible.
    case recoverOrDiscardUnsyncedChanges(beforeReset: ((Realm) -> Void)? = nil, afterReset: ((Realm, Realm) -> Void)? = nil)
    /// Replace the local file with the server's copy, dropping unsynced local changes.
    case discardUnsyncedChanges(beforeReset: ((Realm) -> Void)? = nil, afterReset: ((Realm, Realm) -> Void)? = nil)
    /// The former name of `.discardUnsyncedChanges`.
    @available(*, deprecated, renamed: "discardUnsyncedChanges")
    case discardLocal(beforeReset: ((Realm) -> Void)? = nil, afterReset: ((Realm, Realm) -> Void)? = nil)
    /// Report the reset to `errorHandler` (or the sync manager's) and let the app handle it.
    case manual(errorHandler: ((SyncError, SyncSession?) -> Void)? = nil)
}
