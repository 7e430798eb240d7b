import Foundation
import OutpostCore

/// Server errors, compensating writes and client resets.
extension SyncClientStateMachine {
    mutating func serverError(_ info: SyncErrorInfo, at now: Date) -> [Action] {
        let code = info.code.rawValue
        let actions: [Action] = [.log(.info, "\(prefix) Received: ERROR \"\(info.message)\" "
            + "(error_code=\(code), try_again=\(info.tryAgain), error_action=\(info.action.rawValue))")]
        if code == 231 {
            pendingCompensations.append(info)
            return actions + reportCompensations()
        }
        // Any other error ends the session on the server: nothing more is sent on this connection (a download waiter
        // asking for a mark while `beforeReset` runs would name a session the server no longer has).
        isConnected = false
        isBound = false
        if ClientResetPlan.isRequested(by: info) {
            return actions + clientReset(info, at: now)
        }
        if info.tryAgain && !info.shouldClientReset {
            return actions + [.close]
        }
        isInvalid = true
        let swiftCode = SyncError.Code(protocolCode: code, clientReset: info.shouldClientReset)
        // A file the user may not read: the token deletes it (`deleteRealmUserInfo()`), as the original offers.
        let token = swiftCode == .permissionDeniedError ? SyncError.ActionToken(originalPath: settings.path, backupPath: nil) : nil
        let error = SyncError(swiftCode, info.message, serverLogURL: info.logURL.flatMap(URL.init(string:)),
                              protocolErrorCode: code, isFatal: true, actionToken: token)
        return actions + [.invalidate, .report(error)] + failWaiters(error) + [.failSubscriptions(info.message), .close]
    }

    /// Reports compensating writes whose revert has been applied locally (never before it).
    mutating func reportCompensations() -> [Action] {
        let applied = downloadedServerVersion
        let due = pendingCompensations.filter { ($0.compensatingWriteServerVersion ?? 0) <= applied }
        pendingCompensations.removeAll { ($0.compensatingWriteServerVersion ?? 0) <= applied }
        var actions: [Action] = []
        for info in due {
            actions.append(.log(.info, "\(prefix) Reporting compensating write "
                + "for client version \(info.rejectedClientVersion ?? 0) in server version "
                + "\(info.compensatingWriteServerVersion ?? 0): \(info.message)"))
            let writes = (info.rejectedUpdates ?? []).map(Self.compensatingWriteInfo)
            if let v = info.rejectedClientVersion {
                rejections[v, default: []] += writes
                if rejections.count > 10_000, let oldest = rejections.keys.min() { rejections[oldest] = nil }
            }
            actions.append(.report(SyncError(.writeRejected, info.message, compensatingWriteInfo: writes,
                                             serverLogURL: info.logURL.flatMap(URL.init(string:)), protocolErrorCode: 231)))
        }
        return actions
    }

    static func compensatingWriteInfo(_ update: RejectedUpdate) -> CompensatingWriteInfo {
        CompensatingWriteInfo(objectType: update.table, primaryKey: AnyRealmValue(update.primaryKey),
                              reason: update.reason)
    }

    /// Refused writes recorded in the file (by this process on an earlier connection, or by another one).
    mutating func merge(_ recorded: [Int64: [RejectedUpdate]]) {
        for (version, updates) in recorded where rejections[version] == nil {
            rejections[version] = updates.map(Self.compensatingWriteInfo)
        }
    }

    // MARK: Client reset

    /// The server asked for a client reset (docs/sync-client.md, "Client reset"). `.manual` reports
    /// `.clientResetError` with the path the file will be moved to and stops for good; the automatic modes begin the
    /// reset (``clientResetBegun(_:storedUploadAck:)``).
    private mutating func clientReset(_ info: SyncErrorInfo, at now: Date) -> [Action] {
        let plan = ClientResetPlan(mode: settings.clientResetMode, info: info)
        guard plan != .manual else {
            isInvalid = true
            let token = SyncError.ActionToken(originalPath: settings.path, backupPath: ClientResetBackup.path(for: settings.path, at: now))
            let error = SyncError(.clientResetError, info.message, serverLogURL: info.logURL.flatMap(URL.init(string:)),
                                  protocolErrorCode: info.code.rawValue, isFatal: true, actionToken: token)
            let report: Action = settings.clientResetMode.manualErrorHandler != nil ? .reportToManualHandler(error) : .report(error)
            return [.invalidate, report] + failWaiters(error) + [.failSubscriptions(info.message), .close]
        }
        return [.log(.info, "\(prefix) client reset, \(plan == .recover ? "recovering" : "discarding") unsynced changes: \(info.message)"),
                .beginClientReset(plan)]
    }

    /// The file forgot its server identity (and with `.discard`, its upload queue; `storedUploadAck` is then the
    /// acknowledgement it stores): the session binds again at once as a new file.
    mutating func clientResetBegun(_ plan: ClientResetPlan, storedUploadAck: Int64?) -> [Action] {
        reset = ResetProgress()
        var actions: [Action] = []
        if let storedUploadAck {
            uploadAck = max(uploadAck, storedUploadAck)
            actions += resumeUploadWaiters()
        }
        skipBackoff = true
        return actions + [.close]
    }

    /// A flexible-sync reset waits for the bootstrap of the sets it sent again; when the server refuses the last of
    /// them, none will come: the reset finishes with what the server sent so far, so that it does not wait for ever.
    mutating func resetSetRefused(_ version: Int64) -> [Action] {
        guard var progress = reset, progress.awaitsBootstrap, progress.awaitedVersions.remove(version) != nil else { return [] }
        reset = progress
        guard progress.awaitedVersions.isEmpty, let last = lastDownload else { return [] }
        return [.apply(application(HeldDownloads(), [], cursor: last.cursor, ack: last.ack, bootstrapped: nil,
                                   finishesReset: true, then: .finishReset(upload: false)))]
    }

    /// The reset's download has been applied: `afterReset` is called, and the download waiters get their mark.
    mutating func finishReset() -> [Action] {
        guard reset != nil else { return [] }
        reset = nil
        var actions: [Action] = [.log(.info, "\(prefix) client reset complete")]
        if !downloadWaiters.isEmpty { actions += sendMark(.download) }
        return actions + [.finishClientReset]
    }
}

extension SyncError.Code {
    /// The Swift code for a protocol error code (reference/sync.md §1.4).
    init(protocolCode code: Int, clientReset: Bool) {
        switch code {
        case 206: self = .permissionDeniedError
        case 231: self = .writeRejected
        case 226: self = .invalidFlexibleSyncSubscriptions
        default: self = clientReset || SyncErrorCode(rawValue: code).requiresClientReset ? .clientResetError : .clientSessionError
        }
    }
}
