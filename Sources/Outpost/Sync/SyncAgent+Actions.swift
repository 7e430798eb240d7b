import Foundation
import OutpostCore

/// Carrying out the machine's actions, in order. An action that throws ends the connection (the loop classifies the
/// error); those after it are dropped, as the machine's state is rebuilt from the file when the next one begins.
extension SyncAgent {
    func perform(_ actions: [SyncClientStateMachine.Action]) async throws {
        for action in actions {
            switch action {
            case .storeIdent(let ident, let salt):
                try await database.perform { try $0.syncWrite { try $0.setIdent(fileIdent: ident, salt: salt) } }
            case .holdInFile(let text):
                try await database.perform { try $0.syncWrite { try $0.holdDownload(text) } }
            case .openBootstrapStream(let batch):
                let database = database
                stream = try await database.perform {
                    try $0.syncBeginBootstrapStream(giveWay: { database.cancelBootstrapStream($0) })
                }
                try await perform(machine.streamOpened(stream != nil, batch))
            case .streamBatch(let changesets, let unparsedText):
                guard let stream else { continue }
                let batch: [DownloadChangeset]
                if let unparsedText {
                    do { batch = try Self.changesets(unparsedText) } catch {
                        throw HeldDownloadUnreadable(sequence: 0, reason: "\(error)")
                    }
                } else {
                    batch = changesets
                }
                try await streamBatch(stream, batch)
            case .finishStream(let last, let cursor, let ack, let queryVersion):
                guard let current = stream else { continue }
                if let previous = streamApply { try await previous.value }
                streamApply = nil
                let report = try await database.perform {
                    try $0.syncFinishBootstrapStream(current, last: last, cursor: cursor, uploadAck: ack, queryVersion: queryVersion)
                }
                stream = nil
                try await perform(machine.streamFinished(report, last: last, cursor: cursor, ack: ack,
                                                         queryVersion: queryVersion, instructions: current.instructions))
            case .cancelStream:
                await cancelStream()
            case .apply(let application):
                let report = try await database.perform {
                    try $0.syncApplyDownload(application.held, then: application.changesets, cursor: application.cursor,
                                             uploadAck: application.ack, bootstrappedQueryVersion: application.bootstrapped,
                                             rejections: application.rejections, finishesReset: application.finishesReset)
                }
                try await perform(machine.applied(report, application))
            case .readUploads(let read):
                let limit = 1000
                let (queued, snapshot) = try await database.perform { instance in
                    let file = instance.syncFile
                    return (try file.queued(after: read.after, limit: limit), try file.snapshot())
                }
                try await perform(machine.uploadsRead(read, queued, pending: snapshot.pendingSubscriptions, limit: limit))
            case .storeSubscriptionState(let version, let state):
                try await database.perform { try $0.syncWrite { try $0.setSubscriptionState(version, state) } }
                tracker.set(version, state)
            case .beginClientReset(let plan):
                try await beginClientReset(plan)
            case .endConnection(let error):
                throw error
            default:
                performNow([action])
            }
        }
    }

    /// The actions that need no waiting (sends, logs, waiters, reports).
    func performNow(_ actions: [SyncClientStateMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let message):
                connection?.send(message)
            case .sendUpload(let texts):
                connection?.send(text: ClientMessage.uploadText(session: 1, changesetTexts: texts))
            case .log(let level, let text):
                manager.log(level, text)
            case .close:
                connection?.close()
            case .nudgeUpload:
                connection?.inject(.localChange)
            case .trackSubscription(let version, let state):
                tracker.set(version, state)
            case .failSubscriptions(let message):
                tracker.failAll(message)
            case .finishClientReset:
                finishClientReset()
            case .report(let error):
                report(error)
            case .reportToManualHandler(let error):
                guard let handler = sync.clientResetMode.manualErrorHandler else { report(error); continue }
                let call = UncheckedSendable { [session] in handler(error, session) }
                manager.callbackQueue.async { call.value() }
            case .invalidate:
                session?.setState(.invalid)
            case .reportDownloadProgress(let transferred, let transferrable):
                session?.setDownloadProgress(transferred: transferred, transferrable: transferrable)
            case .resumeDownloadWaiters(let ids):
                for id in ids { downloadContinuations.removeValue(forKey: id)?.resume() }
            case .resumeUploadWaiters(let ids):
                for id in ids { uploadContinuations.removeValue(forKey: id)?.resume() }
            case .answerVerdicts(let answers):
                for (id, verdict) in answers { verdictContinuations.removeValue(forKey: id)?.resume(returning: verdict) }
            case .failWaiters(let error):
                let verdicts = verdictContinuations.values
                let downloads = downloadContinuations.values
                let uploads = uploadContinuations.values
                verdictContinuations.removeAll()
                downloadContinuations.removeAll()
                uploadContinuations.removeAll()
                for c in verdicts { c.resume(throwing: error) }
                for c in downloads { c.resume(throwing: error) }
                for c in uploads { c.resume(throwing: error) }
            case .endConnection(let error):
                // Thrown by `perform`; here (outside a connection's loop) the connection just closes.
                manager.log(.info, "Sync: Connection[\(machine.connectionNumber)]: \(error)")
                connection?.close()
            case .storeIdent, .holdInFile, .openBootstrapStream, .streamBatch, .finishStream, .cancelStream, .apply,
                 .readUploads, .storeSubscriptionState, .beginClientReset:
                assertionFailure("\(action) needs the database: it is carried out by perform(_:)")
            }
        }
    }

    /// The changesets of a download message whose envelope alone was read.
    static func changesets(_ text: String) throws -> [DownloadChangeset] {
        guard case .download(let download) = try ServerMessage.decode(text) else { return [] }
        return download.changesets
    }

    /// Sends an error to the manager's handler, on its serial queue: a handler that blocks (or opens the Realm)
    /// cannot stall the session, and reports keep their order.
    func report(_ error: SyncError) {
        guard let handler = manager.errorHandler else {
            manager.log(.error, "Sync: Session[\(sessionNumber)]: \(error.message) (no errorHandler is set)")
            return
        }
        let call = UncheckedSendable { [session] in handler(error, session) }
        manager.callbackQueue.async { call.value() }
    }
}
