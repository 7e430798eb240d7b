import Foundation
import OutpostCore

/// How the session handles a client reset the server asked for (docs/sync-client.md, "Client reset"): the
/// configuration's ``ClientResetMode`` applied to what the server allows.
enum ClientResetPlan: Equatable {
    /// Replace the local data with the server's and upload the unsynced local changes again on top.
    case recover
    /// Replace the local data with the server's and drop the unsynced local changes.
    case discard
    /// Report `.clientResetError` and stop; the app moves the file away (`SyncSession.immediatelyHandleError`).
    case manual

    /// The plan for `mode` when the server sent `info`. Recovery that the server refuses (`ClientResetNoRecovery`,
    /// or recovery disabled) falls back as the original does: `.recoverUnsyncedChanges` to manual,
    /// `.recoverOrDiscardUnsyncedChanges` to discard.
    init(mode: ClientResetMode, info: SyncErrorInfo) {
        let recoveryRefused = info.action == .clientResetNoRecovery || info.isRecoveryModeDisabled
        switch mode {
        case .manual: self = .manual
        case .discardUnsyncedChanges, .discardLocal: self = .discard
        case .recoverUnsyncedChanges: self = recoveryRefused ? .manual : .recover
        case .recoverOrDiscardUnsyncedChanges: self = recoveryRefused ? .discard : .recover
        }
    }

    /// Whether the server's error asks for a client reset: the original's reset codes (208 bad client file ident,
    /// 209 bad server version, 210 bad client version, 211, 217, 222), or a `ClientReset` action.
    static func isRequested(by info: SyncErrorInfo) -> Bool {
        info.shouldClientReset || info.action == .clientReset || info.action == .clientResetNoRecovery
            || info.code.requiresClientReset
    }

    /// The value kept in the file's `clientReset` meta key while a reset is under way.
    var storedValue: Int64 { self == .discard ? 2 : 1 }
}

extension ClientResetMode {
    /// The callbacks of an automatic mode (none for `.manual`).
    var callbacks: (before: ((Realm) -> Void)?, after: ((Realm, Realm) -> Void)?) {
        switch self {
        case .recoverUnsyncedChanges(let before, let after), .recoverOrDiscardUnsyncedChanges(let before, let after),
             .discardUnsyncedChanges(let before, let after), .discardLocal(let before, let after):
            return (before, after)
        case .manual:
            return (nil, nil)
        }
    }

    /// The handler of `.manual(errorHandler:)`, when one was given.
    var manualErrorHandler: ((SyncError, SyncSession?) -> Void)? {
        if case .manual(let handler) = self { return handler }
        return nil
    }
}

extension RealmInstance {
    /// Starts a client reset in one transaction: the file forgets its server identity and download cursor (the
    /// session binds as a new file and downloads the server's data again), the newest complete subscription set
    /// becomes pending again (so that the server bootstraps it), and with `.discard` the upload queue is emptied.
    /// The objects are untouched until the reset's download is applied (`syncApplyDownload`, `finishesReset`).
    /// The `clientReset` meta key records the reset, so that a crash in between resumes it.
    func syncBeginClientReset(_ plan: ClientResetPlan) throws {
        try beginWrite()
        do {
            try connection.execute("DELETE FROM __outpost_sync_meta WHERE key IN ('fileIdent', 'salt')")
            try SyncStore.setCursor(connection, DownloadCursor(serverVersion: 0, clientVersion: 0))
            if plan == .discard {
                // Dropped transactions count as done: `wait(for: .upload)` does not wait for them.
                try connection.execute("DELETE FROM __outpost_sync_upload")
                try SyncStore.setInteger(connection, "uploadAck", try SyncStore.lastClientVersion(connection))
            }
            try connection.execute("""
                UPDATE __outpost_sync_subscriptions SET state = 'pending'
                WHERE state IN ('bootstrapping', 'awaitingMark')
                   OR version = (SELECT max(version) FROM __outpost_sync_subscriptions WHERE state = 'complete')
                """)
            try SyncStore.setInteger(connection, "clientReset", plan.storedValue)
            try commitWrite()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
    }
}

extension SyncError {
    /// What `SyncSession.immediatelyHandleError(_:syncManager:)` needs to move a reset file out of the way (Realm's
    /// `RLMSyncErrorActionToken`).
    public struct ActionToken: Sendable {
        /// The synced file's path.
        let originalPath: String
        /// Where the file goes.
        let backupPath: String
    }

    /// For a `.clientResetError`: the path the local file will be moved to, and the token that moves it now
    /// (`SyncSession.immediatelyHandleError(_:syncManager:)`). nil for other errors.
    public func clientResetInfo() -> (String, SyncError.ActionToken)? {
        guard code == .clientResetError, let token = actionToken else { return nil }
        return (token.backupPath, token)
    }
}

extension SyncSession {
    /// Moves the file of a manual client reset to its backup path now (Realm's
    /// `SyncSession.immediatelyHandleError(_:syncManager:)`): the file, its `-wal` and `-shm`. Every Realm instance of
    /// the file should be closed first. The next open of the configuration starts from an empty file and downloads
    /// the server's data.
    public static func immediatelyHandleError(_ token: SyncError.ActionToken, syncManager: SyncManager) {
        SyncSessionRegistry.shared.forget(path: token.originalPath)
        let files = FileManager.default
        try? files.createDirectory(atPath: (token.backupPath as NSString).deletingLastPathComponent,
                                   withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] where files.fileExists(atPath: token.originalPath + suffix) {
            do {
                try files.moveItem(atPath: token.originalPath + suffix, toPath: token.backupPath + suffix)
            } catch {
                syncManager.log(.error, "Sync: could not move \(token.originalPath + suffix) for the client reset: \(error)")
            }
        }
    }
}

enum ClientResetBackup {
    /// `<directory of the file>/recovered-realms/<name>-<UTC timestamp>.realm`.
    static func path(for realmPath: String, at date: Date = Date()) -> String {
        let url = URL(fileURLWithPath: realmPath)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let name = url.deletingPathExtension().lastPathComponent + "-" + formatter.string(from: date) + ".realm"
        return url.deletingLastPathComponent().appendingPathComponent("recovered-realms").appendingPathComponent(name).path
    }
}
