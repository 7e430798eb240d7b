import Foundation
import OutpostCore

/// Uploads, the waiters of `wait(for:)` and `verdict(forTransaction:)`, and what another syncing process finished.
extension SyncClientStateMachine {
    // MARK: Uploads

    /// Asks for the queue to upload: nothing goes while a bootstrap arrives or before the file has its identity.
    mutating func pump() -> [Action] {
        guard isBound, fileIdent != nil, !isBootstrapping else { return [] }
        return [.readUploads(UploadRead(generation: generation, after: lastSentClientVersion, lastQuery: lastSentQueryVersion))]
    }

    /// A local commit or a new subscription set (or a nudge), taken in the connection's loop so that two reads of
    /// the queue never overlap.
    mutating func localChange() -> [Action] { pump() }

    /// The queue read for `read`: queued transactions and subscription sets go in commit order, each set before the
    /// first transaction made under it; one UPLOAD stays within the server's size limit.
    mutating func uploadsRead(_ read: UploadRead, _ queued: [SyncFile.QueuedUpload], pending: [SubscriptionQuery],
                              limit: Int) -> [Action] {
        guard isBound, read.generation == generation else { return [] }
        var actions: [Action] = []
        var batch: [SyncFile.QueuedUpload] = []
        var batchBytes = 0
        var sentQuery = read.lastQuery
        func flush() {
            guard !batch.isEmpty else { return }
            actions.append(.log(.debug, "\(prefix) Sending: UPLOAD(client versions "
                + "\(batch[0].clientVersion)…\(batch[batch.count - 1].clientVersion))"))
            actions.append(.sendUpload(batch.map(\.text)))
            batch.removeAll()
            batchBytes = 0
        }
        let pendingSets = settings.flexibleSync ? pending.filter { $0.version > read.lastQuery } : []
        for item in queued {
            for set in pendingSets where set.version > sentQuery && set.version <= item.queryVersion {
                flush()
                actions.append(.send(.query(session: 1, subscriptions: set)))
                sentQuery = set.version
            }
            // One message stays within the server's limit: many transactions queued offline take several.
            let bytes = item.text.utf8.count + 1
            if batchBytes + bytes > SyncFile.maxChangesetBytes { flush() }
            batch.append(item)
            batchBytes += bytes
            lastSentClientVersion = item.clientVersion
        }
        flush()
        for set in pendingSets where set.version > sentQuery {
            actions.append(.send(.query(session: 1, subscriptions: set)))
            sentQuery = set.version
        }
        lastSentQueryVersion = sentQuery
        if queued.count == limit { actions.append(.nudgeUpload) }
        return actions
    }

    // MARK: Waiters

    /// `wait(for: .download)`: resumed by the answer to a download mark sent after it began waiting.
    mutating func waitForDownload(_ id: UUID) -> [Action] {
        downloadWaiters[id] = nextRequestId
        guard isBound, fileIdent != nil, reset == nil else { return [] }
        return sendMark(.download)
    }

    /// `wait(for: .upload)` until the server acknowledges client version `target`.
    mutating func waitForUpload(_ id: UUID, target: Int64) -> [Action] {
        if uploadAck >= target { return [.resumeUploadWaiters([id])] }
        uploadWaiters[id] = target
        return [.nudgeUpload]
    }

    /// A waiter stopped waiting (cancelled); true when it still waited.
    mutating func stopWaiting(_ id: UUID) -> Bool {
        let download = downloadWaiters.removeValue(forKey: id) != nil
        let upload = uploadWaiters.removeValue(forKey: id) != nil
        return download || upload
    }

    /// Every waiter fails (a fatal error).
    mutating func failWaiters(_ error: SyncError) -> [Action] {
        guard !downloadWaiters.isEmpty || !uploadWaiters.isEmpty || !verdictWaiters.isEmpty else { return [] }
        downloadWaiters.removeAll()
        uploadWaiters.removeAll()
        verdictWaiters.removeAll()
        return [.failWaiters(error)]
    }

    /// The session is forgotten for good: the `wait(for:)` callers are dropped (the executor fails them).
    mutating func abandonWaiters() {
        downloadWaiters.removeAll()
        uploadWaiters.removeAll()
    }

    mutating func resumeUploadWaiters() -> [Action] {
        let ready = uploadWaiters.filter { $0.value <= uploadAck }.map(\.key)
        for id in ready { uploadWaiters.removeValue(forKey: id) }
        return ready.isEmpty ? [] : [.resumeUploadWaiters(ready)]
    }

    // MARK: Verdicts

    /// The server's verdict on one committed transaction (by client version), when it is known: once the server
    /// acknowledged it and any compensating write for it was applied and reported. Otherwise the caller waits.
    mutating func verdict(_ id: UUID, forTransaction version: Int64) -> (SyncSession.WriteVerdict?, [Action]) {
        if let v = decidedVerdict(version) { return (v, []) }
        verdictWaiters.append((id, version))
        return (nil, [.nudgeUpload])
    }

    func decidedVerdict(_ version: Int64) -> SyncSession.WriteVerdict? {
        guard uploadAck >= version, !pendingCompensations.contains(where: { $0.rejectedClientVersion == version }) else {
            return nil
        }
        if let infos = rejections[version] { return .rejected(infos) }
        return .accepted
    }

    mutating func resolveVerdicts() -> [Action] {
        var answered: [(UUID, SyncSession.WriteVerdict)] = []
        var still: [(id: UUID, version: Int64)] = []
        for w in verdictWaiters {
            if let v = decidedVerdict(w.version) { answered.append((w.id, v)) } else { still.append(w) }
        }
        verdictWaiters = still
        return answered.isEmpty ? [] : [.answerVerdicts(answered)]
    }

    // MARK: Another process syncs the file

    /// What the process that syncs the file finished: its acknowledgement, and the refused writes of the versions
    /// it moves past (read in the same transaction).
    mutating func followed(uploadAck ack: Int64, recorded: [Int64: [RejectedUpdate]]) -> [Action] {
        merge(recorded)
        var actions: [Action] = []
        if ack > uploadAck {
            uploadAck = ack
            actions += resumeUploadWaiters()
        }
        return actions + resolveVerdicts()
    }
}
