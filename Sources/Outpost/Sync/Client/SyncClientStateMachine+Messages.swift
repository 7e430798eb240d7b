import Foundation
import OutpostCore

/// What the machine makes of the server's messages.
extension SyncClientStateMachine {
    /// What the loop knows of the world beside a message: the tracker's state of the download's query version, and
    /// whether the app has a usable Realm of the file open (a bootstrap is then held, not applied as it arrives).
    struct Context {
        var subscriptionState: SubscriptionSetState?
        var appFileOpen = false
        var now = Date()
    }

    /// Whether a download message of `bytes` bytes is read whole now; a bootstrap batch that will be stored in the
    /// file is not (only its envelope is read, ``storedBatchEnvelope``).
    func keepsInMemory(_ bytes: Int) -> Bool {
        held.keepsInMemory(bytes, limit: settings.heldDownloadMemoryLimit)
    }

    /// One message from the server; `text` is the message as it came (a held download may be stored as is).
    /// `unparsed`: a download whose changesets were not read; its text holds them.
    mutating func received(_ message: ServerMessage, text: String, unparsed: Bool = false, context: Context) -> [Action] {
        guard isConnected else { return [] }
        if isStreaming, !Self.continuesStream(message) {
            // Anything but the bootstrap's next batch may need a write, and the stream's transaction is open: the
            // bootstrap is rolled back, the message handled as usual, and the bootstrap comes again on the next
            // connection (the rest of this one would be applied without its first batches).
            isStreaming = false
            isBootstrapping = false
            return [.cancelStream] + handle(message, text: text, unparsed: unparsed, context: context)
                + [.endConnection(BootstrapStreamInterrupted(reason: "another message came before its last batch"))]
        }
        return handle(message, text: text, unparsed: unparsed, context: context)
    }

    /// Whether a message may arrive while a bootstrap stream is open: its next batch, or one that writes nothing.
    static func continuesStream(_ message: ServerMessage) -> Bool {
        switch message {
        case .download(let download) where download.batch == .moreToCome || download.batch == .lastInBatch: true
        case .pong, .log: true
        default: false
        }
    }

    private mutating func handle(_ message: ServerMessage, text: String, unparsed: Bool, context: Context) -> [Action] {
        switch message {
        case .ident(_, let ident, let salt):
            failedAttempts = 0
            fileIdent = ident
            return [.storeIdent(fileIdent: ident, salt: salt)] + afterIdent()
        case .download(let download):
            failedAttempts = 0
            lastDownload = (download.cursor, download.uploadAck)
            announcedLatest = max(announcedLatest, download.latestServerVersion)
            switch download.batch {
            case .moreToCome:
                return bootstrapBatch(download.changesets, text: text, unparsed: unparsed,
                                      queryVersion: download.queryVersion, context: context)
            case .lastInBatch:
                return lastBatch(download.changesets, text: text, cursor: download.cursor, ack: download.uploadAck,
                                 queryVersion: download.queryVersion)
            case .steadyState:
                isBootstrapping = false
                if let progress = reset, !progress.awaitsBootstrap {
                    // A client reset without a bootstrap: the downloads since version 0 are the server's data, held
                    // and applied together once they reach the latest version.
                    if download.cursor.serverVersion >= download.latestServerVersion {
                        return [.apply(application(takeHeld(), download.changesets, cursor: download.cursor,
                                                   ack: download.uploadAck, bootstrapped: nil,
                                                   finishesReset: true, then: .finishReset(upload: true)))]
                    }
                    return hold(download.changesets, text: text) + pump()
                }
                return [.apply(application(takeHeld(), download.changesets, cursor: download.cursor,
                                           ack: download.uploadAck, bootstrapped: nil, then: .upload))]
            }
        case .mark(_, let requestId, _):
            switch markRequests.removeValue(forKey: requestId) {
            case .query(let version)?:
                return [.storeSubscriptionState(version, .complete)]
            case .download?:
                // Only the callers that were waiting when this mark was sent: a later one needs a later mark.
                let ready = downloadWaiters.filter { $0.value <= requestId }.map(\.key)
                for id in ready { downloadWaiters.removeValue(forKey: id) }
                return ready.isEmpty ? [] : [.resumeDownloadWaiters(ready)]
            case nil:
                return []
            }
        case .queryError(_, let version, let code, let message):
            return [.log(.info, "\(prefix) Received: QUERY_ERROR \"\(message)\" (error_code=\(code.rawValue), query_version=\(version))"),
                    .storeSubscriptionState(version, .error(message))] + resetSetRefused(version)
        case .error(let info):
            return serverError(info, at: context.now)
        case .pong:
            keepalive.pongReceived()
            return []
        case .unbound:
            return [.close]
        case .log(_, let level, let message):
            return [.log(SyncLogLevel(serverLevel: level), "\(prefix) Server: \(message)")]
        }
    }

    // MARK: Downloads

    /// A bootstrap's batch, or a part of a changeset too large for one message (its last part comes in a
    /// steady-state download): kept until the message that completes it, and applied with it — or applied as it
    /// arrives, in a stream whose transaction commits with the last batch, when nothing else is pending and no app
    /// Realm of the file is open.
    private mutating func bootstrapBatch(_ changesets: [DownloadChangeset], text: String, unparsed: Bool,
                                         queryVersion: Int64, context: Context) -> [Action] {
        var actions: [Action] = []
        var state = context.subscriptionState
        if !isBootstrapping {
            switch state {
            case nil, .pending?:
                state = .bootstrapping
                actions.append(.trackSubscription(queryVersion, .bootstrapping))
            default: break  // parts of a large changeset for a set bootstrapped already
            }
        }
        let batch = PendingBatch(queryVersion: queryVersion, changesets: changesets, text: text, unparsed: unparsed)
        if !isBootstrapping, reset == nil, held.isEmpty, pendingCompensations.isEmpty, state == .bootstrapping,
           settings.flexibleSync, !context.appFileOpen {
            isBootstrapping = true
            return actions + [.openBootstrapStream(batch)]
        }
        isBootstrapping = true
        return actions + take(batch)
    }

    /// The bootstrap stream opened (or could not be: the batch is held instead).
    mutating func streamOpened(_ opened: Bool, _ batch: PendingBatch) -> [Action] {
        guard isConnected else { return [] }
        if opened {
            isStreaming = true
            return [.log(.debug, "\(prefix) applying the bootstrap of query version \(batch.queryVersion) as it arrives")] + take(batch)
        }
        return take(batch)
    }

    /// A bootstrap batch goes into the open stream, or is held.
    private mutating func take(_ batch: PendingBatch) -> [Action] {
        if isStreaming {
            // Unread only when it is larger than the held-download limit (the first batch).
            return [.streamBatch(batch.unparsed ? [] : batch.changesets, unparsedText: batch.unparsed ? batch.text : nil)]
        }
        return hold(batch.changesets, text: batch.text, unparsed: batch.unparsed)
    }

    private mutating func lastBatch(_ changesets: [DownloadChangeset], text: String, cursor: DownloadCursor, ack: Int64,
                                    queryVersion: Int64) -> [Action] {
        if isStreaming {
            return [.finishStream(last: changesets, cursor: cursor, ack: ack, queryVersion: queryVersion)]
        }
        if let progress = reset, !progress.awaitsBootstrap {
            // A partition-based reset holds every download until it has caught up (not sent by Outpost's server,
            // which bootstraps only subscription sets): this one is held too.
            return hold(changesets, text: text)
        }
        let taken = takeHeld()
        isBootstrapping = false
        let finishesReset = reset?.awaitsBootstrap == true
        return [.apply(application(taken, changesets, cursor: cursor, ack: ack, bootstrapped: queryVersion,
                                   finishesReset: finishesReset,
                                   then: .bootstrapped(queryVersion: queryVersion, finishesReset: finishesReset)))]
    }

    /// The stream committed with its last batch (`instructions` applied in all).
    mutating func streamFinished(_ report: RealmInstance.SyncDownloadReport, last changesets: [DownloadChangeset],
                                 cursor: DownloadCursor, ack: Int64, queryVersion: Int64, instructions: Int) -> [Action] {
        isStreaming = false
        isBootstrapping = false
        var actions = afterApply(report, HeldDownloads(), changesets, cursor: cursor, ack: ack, streamed: instructions)
        actions.append(.trackSubscription(queryVersion, .awaitingMark))
        actions += sendMark(.query(queryVersion))
        return actions + pump()
    }

    /// The stream was rolled back (an error, a stop, a writer it gave way to).
    mutating func streamCancelled() {
        isStreaming = false
        isBootstrapping = false
    }

    /// Holds a download message back until the one that completes it: parsed in memory up to the limit, stored in the
    /// file beyond it (``HeldDownloads``).
    private mutating func hold(_ changesets: [DownloadChangeset], text: String, unparsed: Bool = false) -> [Action] {
        let bytes = text.utf8.count
        if !unparsed, held.keepsInMemory(bytes, limit: settings.heldDownloadMemoryLimit) {
            held.keep(changesets, bytes: bytes)
            return []
        }
        held.noteStored(instructions: unparsed ? SyncProtocolLimits.maxInstructionsPerDownload
                            : changesets.reduce(0) { $0 + $1.instructions.count })
        return [.holdInFile(text)]
    }

    private mutating func takeHeld() -> HeldDownloads {
        defer { held = HeldDownloads() }
        return held
    }

    /// A download to apply, with the rejections whose revert it applies (recorded with it, so that
    /// `verdict(forTransaction:)` answers from the file after a restart).
    func application(_ held: HeldDownloads, _ changesets: [DownloadChangeset], cursor: DownloadCursor, ack: Int64,
                     bootstrapped: Int64?, finishesReset: Bool = false, then: Application.Then) -> Application {
        let rejected = pendingCompensations.compactMap { info -> (Int64, [RejectedUpdate])? in
            guard let version = info.rejectedClientVersion, (info.compensatingWriteServerVersion ?? 0) <= cursor.serverVersion
            else { return nil }
            return (version, info.rejectedUpdates ?? [])
        }
        return Application(held: held, changesets: changesets, cursor: cursor, ack: ack, bootstrapped: bootstrapped,
                           finishesReset: finishesReset, rejections: rejected, then: then)
    }

    /// A download was applied: its log lines, the progress, the waiters it answers, and what follows it.
    mutating func applied(_ report: RealmInstance.SyncDownloadReport, _ application: Application) -> [Action] {
        var actions = afterApply(report, application.held, application.changesets, cursor: application.cursor,
                                 ack: application.ack)
        switch application.then {
        case .upload:
            return actions + pump()
        case .bootstrapped(let queryVersion, let finishesReset):
            if finishesReset { actions += finishReset() }
            actions.append(.trackSubscription(queryVersion, .awaitingMark))
            actions += sendMark(.query(queryVersion))
            return actions + pump()
        case .finishReset(let upload):
            return actions + finishReset() + (upload ? pump() : [])
        }
    }

    /// After a download was applied. `streamed`: the instructions a bootstrap stream applied, its last batch included.
    private mutating func afterApply(_ report: RealmInstance.SyncDownloadReport, _ held: HeldDownloads,
                                     _ changesets: [DownloadChangeset], cursor: DownloadCursor, ack: Int64,
                                     streamed: Int? = nil) -> [Action] {
        if held.stored > 0 || streamed != nil { unreadableHeldDownloads = 0 }
        var actions: [Action] = report.problems.map { .log(.warn, "\(prefix) could not apply a downloaded change to \($0)") }
        let heldNote = streamed.map { " after \($0) instructions applied as they arrived" }
            ?? (held.isEmpty ? "" : " after \(held.instructionCount) held instructions (\(held.stored) messages stored)")
        let ident = fileIdent
        actions.append(.log(.debug, "\(prefix) Received: DOWNLOAD(server versions \(changesets.first.map { "\($0.serverVersion)" } ?? "-")"
            + "…\(changesets.last.map { "\($0.serverVersion)" } ?? "-"), cursor \(cursor.serverVersion), upload ack \(ack), "
            + "\(changesets.count) changesets\(heldNote), own client versions \(changesets.filter { $0.originFileIdent == ident }.map(\.originClientVersion)))"))
        actions += report.kept.map { .log(.trace, "\(prefix) \($0)") }
        downloadedServerVersion = max(downloadedServerVersion, cursor.serverVersion)
        uploadAck = max(uploadAck, ack)
        lastSentClientVersion = max(lastSentClientVersion, ack)
        actions.append(.reportDownloadProgress(
            transferred: Int(max(0, cursor.serverVersion - downloadBase)),
            transferrable: Int(max(0, max(announcedLatest, cursor.serverVersion) - downloadBase))))
        return actions + resumeUploadWaiters() + reportCompensations() + resolveVerdicts()
    }
}
