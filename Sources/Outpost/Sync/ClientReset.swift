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

    /// The reason `verdict(forTransaction:)` gives for the writes of a transaction a reset discarded.
    static let discardedReason = "discarded by a client reset (discardUnsyncedChanges) before the server integrated it"

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
        try syncWrite { file in
            try file.forgetIdent()
            try file.setCursor(DownloadCursor(serverVersion: 0, clientVersion: 0))
            if plan == .discard {
                // Dropped transactions count as done: `wait(for: .upload)` does not wait for them, and
                // `verdict(forTransaction:)` answers `.rejected` for each, with the objects it wrote.
                var discarded: [(Int64, [RejectedUpdate])] = []
                for item in try file.queued(after: 0, limit: Int.max >> 1) {
                    guard let json = JSONValue.parse(item.text) else { continue }
                    var seen = Set<String>()
                    let instructions = try UploadChangeset(json: json, path: "upload").instructions
                    let writes = instructions.compactMap { instruction -> RejectedUpdate? in
                        let key = PendingLocalChanges.key(instruction.className, instruction.primaryKey)
                        guard seen.insert(key).inserted else { return nil }
                        return RejectedUpdate(table: instruction.className, primaryKey: instruction.primaryKey,
                                              reason: ClientResetPlan.discardedReason)
                    }
                    discarded.append((item.clientVersion, writes))
                }
                if !discarded.isEmpty { try file.recordRejections(discarded) }
                try file.discardQueue()
            }
            try file.makeSubscriptionsPendingForReset()
            try file.recordClientReset(plan)
        }
    }
}

extension SyncError {
    /// What `SyncSession.immediatelyHandleError(_:syncManager:)` needs to move a reset file out of the way, or to
    /// delete a file the user may no longer read (Realm's `RLMSyncErrorActionToken`).
    public struct ActionToken: Sendable {
        /// The synced file's path.
        let originalPath: String
        /// Where the file goes; nil: it is deleted.
        let backupPath: String?
    }

    /// For a `.clientResetError`: the path the local file will be moved to, and the token that moves it now
    /// (`SyncSession.immediatelyHandleError(_:syncManager:)`). nil for other errors.
    public func clientResetInfo() -> (String, SyncError.ActionToken)? {
        guard code == .clientResetError, let token = actionToken, let backupPath = token.backupPath else { return nil }
        return (backupPath, token)
    }

    /// For a `.permissionDeniedError` (the server refused the file's session, 206): the token with which
    /// `SyncSession.immediatelyHandleError(_:syncManager:)` deletes the local file. nil for other errors.
    public func deleteRealmUserInfo() -> SyncError.ActionToken? {
        guard code == .permissionDeniedError, let token = actionToken, token.backupPath == nil else { return nil }
        return token
    }
}

extension SyncSession {
    /// Moves the file of a manual client reset to its backup path now, or deletes the file of a permission error
    /// (Realm's `SyncSession.immediatelyHandleError(_:syncManager:)`). The next open of the configuration starts from
    /// an empty file and downloads the server's data.
    ///
    /// Every Realm of the file must be closed first: while one is open the file stays where it is and an error is
    /// logged (moving a SQLite file that a connection still writes would lose or corrupt commits). The file's
    /// write-ahead log is folded into it before the move, so the backup is one whole file.
    public static func immediatelyHandleError(_ token: SyncError.ActionToken, syncManager: SyncManager) {
        let path = token.originalPath
        // The session's own connection to the file.
        SyncSessionRegistry.shared.anySession(forPath: path)?.agent.database.closeNow()
        guard RealmRegistry.shared.openCount(path: path) == 0 else {
            syncManager.log(.error, "Sync: \(path) is still open; close every Realm of it, then call immediatelyHandleError "
                + "again to " + (token.backupPath.map { "move it to \($0) for the client reset" } ?? "delete it"))
            return
        }
        SyncSessionRegistry.shared.forget(path: path)
        let files = FileManager.default
        guard files.fileExists(atPath: path) else { return }
        do {
            if let backupPath = token.backupPath {
                try SQLiteConnection(path: path, create: false).execute("PRAGMA wal_checkpoint(TRUNCATE)")
                try files.createDirectory(atPath: (backupPath as NSString).deletingLastPathComponent,
                                          withIntermediateDirectories: true)
                try files.moveItem(atPath: path, toPath: backupPath)
            } else {
                try files.removeItem(atPath: path)
            }
        } catch {
            syncManager.log(.error, "Sync: could not " + (token.backupPath.map { "move \(path) to \($0) for the client reset" }
                ?? "delete \(path)") + ": \(error)")
            return
        }
        // Empty after the checkpoint; removed so that the next file does not find them.
        for suffix in ["-wal", "-shm"] { try? files.removeItem(atPath: path + suffix) }
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
