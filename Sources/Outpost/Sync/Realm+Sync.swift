import Foundation
import OutpostCore

extension Realm {
    /// When an asynchronous open of a synced Realm downloads first (Realm's `Realm.OpenBehavior`).
    public enum OpenBehavior: Sendable {
        /// Open at once; data arrives in the background (like the synchronous `Realm(configuration:)`).
        case never
        /// Download everything first only when the file does not exist yet.
        case once
        /// Always download everything the server has before returning.
        case always
    }
}

extension Realm {
    /// The sync session of a synced Realm; nil for a local Realm. While its user is logged out it is inactive (the
    /// same session as before the log-out, or a new one for a file opened while the user is out), as in the original,
    /// and it starts when the user logs in again unless the app suspended it.
    public var syncSession: SyncSession? {
        guard configuration.syncConfiguration != nil else { return nil }
        return SyncSessionRegistry.shared.anySession(forPath: instance.path)
    }

    /// Outpost-only: the client version of the last transaction this Realm instance committed that has changes to
    /// upload (nil before the first). Pass it to `syncSession.verdict(forTransaction:)`.
    public var lastCommittedSyncTransaction: Int64? { instance.syncRecorder?.lastCommittedClientVersion }

    /// The latest subscription set of a flexible sync Realm. Traps on a local or partition-based Realm, as Realm does.
    public var subscriptions: SyncSubscriptionSet {
        guard configuration.syncConfiguration?.enableFlexibleSync == true else {
            fatalError("This Realm was not configured with flexible sync")
        }
        return SyncSubscriptionSet(realm: instance)
    }

    /// Waits, for an asynchronous open, until the initial subscriptions completed and the download finished.
    static func waitForDownload(path: String, configuration: Configuration) async throws {
        guard let session = SyncSessionRegistry.shared.session(forPath: path) else { return }
        // As the original: an open that downloads first resumes a suspended session (it would wait for ever).
        if session.state == .inactive, session.user.isLoggedIn { session.resume() }
        guard configuration.syncConfiguration?.cancelAsyncOpenOnNonFatalErrors == true else {
            try await waitForDownload(path: path, configuration: configuration, session: session)
            return
        }
        // The open fails with the first connection attempt that fails, instead of waiting for a later one to succeed.
        let agent = session.agent!
        try await SyncWaiting.race(failure: { await agent.nextConnectionFailure() }) {
            try await waitForDownload(path: path, configuration: configuration, session: session)
        }
    }

    private static func waitForDownload(path: String, configuration: Configuration, session: SyncSession) async throws {
        if configuration.syncConfiguration?.enableFlexibleSync == true {
            let latest = try SyncOpenSupport.latestSubscriptionVersion(path: path)
            if latest > 0 {
                let tracker = SyncSessionRegistry.shared.tracker(forPath: path)
                let state = try await SyncWaiting.cancellable {
                    await withCheckedContinuation { c in tracker.wait(latest) { c.resume(returning: $0) } }
                }
                if case .error(let message) = state { throw Realm.Error(.subscriptionFailed, message) }
            }
        }
        try await session.wait(for: .download)
    }
}

/// Sync set-up when a synced file opens.
enum SyncOpenSupport {
    static func latestSubscriptionVersion(path: String) throws -> Int64 {
        try SyncFile(SQLiteConnection(path: path, readOnly: true)).latestSubscriptionVersion()
    }

    /// The original's checks of a synced schema: every top-level class has a primary key stored as `_id` (its
    /// property may have another name, mapped by `propertiesMapping()`).
    static func checkSchema(_ instance: RealmInstance) throws {
        for table in instance.tablesByName.values.sorted(by: { $0.className < $1.className }) where !table.schema.isEmbedded {
            guard let pk = table.primaryKeyProperty else {
                throw Realm.Error(.schemaMismatch,
                    "There must be a primary key property named '_id' on a synchronized Realm but none was found for type '\(table.className)'")
            }
            let name = table.schema.allProperties[pk].columnName
            if name != "_id" {
                throw Realm.Error(.schemaMismatch,
                    "The primary key property on a synchronized Realm must be named '_id' but found '\(name)' for type '\(table.className)'")
            }
        }
    }

    /// Prepares a newly opened instance of a synced file: sync tables, the upload recorder, the initial
    /// subscriptions, and (unless it is the session's own instance) the session.
    static func prepare(_ instance: RealmInstance, fileExisted: Bool) throws {
        let configuration = instance.configuration
        guard let sync = configuration.syncConfiguration else { return }
        try checkSchema(instance)
        instance.endRead()
        if try !instance.syncFile.isPrepared() {
            // Behind this process's other writers (a session applying a bootstrap as it arrives gives way to one).
            instance.acquireWriteLock()
            defer { instance.releaseWriteLock() }
            try instance.syncFile.prepare()
        }
        try instance.beginRead()
        // Ahead of the other commit observers (the event recorder, attached already): see ``SyncRecorder``.
        instance.attach(SyncRecorder(isFlexible: sync.enableFlexibleSync,
                                     rejectsWritesOutsideSubscriptions: sync.rejectsWritesOutsideSubscriptions),
                        first: true)
        guard !configuration.isInternalWorker else { return }
        if sync.enableFlexibleSync, let initial = sync.initialSubscriptions, !fileExisted || sync.rerunOnOpen {
            let set = SyncSubscriptionSet(realm: instance)
            set.commitUpdate { initial(set) }
        }
        SyncSessionRegistry.shared.ensureSession(configuration, path: instance.path)
    }
}
