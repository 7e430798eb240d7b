import Foundation
import OutpostCore

extension ServerSession {
    /// Sends every server changeset after the session's cursor, filtered to its view, in batches. Compensating
    /// writes addressed to this file are announced with error 231 right before the download that undoes them.
    ///
    /// - Parameters:
    ///   - always: send a (possibly empty) download even when the client is up to date, so it learns the latest
    ///     version and the upload acknowledgement.
    ///   - upTo: send nothing after this server version (the rest waits for the session's next wake or upload).
    func sendDownloads(always: Bool = false, upTo: Int64? = nil) async {
        do {
            let (latest, first) = try await engine.hub.catchUp(
                appId: user.appId, after: cursor.serverVersion, upTo: upTo, limit: 256)
            var prefetched: [ServerChangeset]? = first
            if always && cursor.serverVersion >= latest {
                cursor.clientVersion = uploadAck
                await writer.send(.download(
                    session: id, cursor: cursor, latestServerVersion: latest, uploadAck: uploadAck,
                    queryVersion: view.queryVersion, batch: .steadyState, changesets: []))
                return
            }
            while cursor.serverVersion < latest {
                let batch: [ServerChangeset]
                if let prefetched {
                    batch = prefetched
                } else {
                    batch = try await engine.hub.changesets(appId: user.appId, after: cursor.serverVersion, upTo: latest, limit: 256)
                }
                prefetched = nil
                guard let last = batch.last else { break }
                var out: [[UInt8]] = []
                var instructionCount = 0
                for changeset in batch {
                    let draft = changeset.draft
                    if let audience = draft.audience, audience != fileIdent { continue }
                    let forced = draft.audience != nil
                    let former = changeset.serverVersion <= formerViewUntil ? formerView : nil
                    let held = heldCreates.isEmpty ? nil : heldCreates.removeValue(forKey: changeset.serverVersion)
                    if let compensation = draft.compensation, draft.audience == fileIdent {
                        await announce(compensation, serverVersion: changeset.serverVersion)
                    }
                    let entry: DownloadCache.Entry
                    if !forced && former == nil && held == nil {
                        let view = self.view!
                        entry = engine.downloads.entry(serverVersion: changeset.serverVersion, view: view.downloadKey) {
                            Self.download(changeset, view: view, forced: false, former: nil, held: nil)
                        }
                    } else {
                        entry = Self.download(changeset, view: view, forced: forced, former: former, held: held)
                    }
                    guard let json = entry.json else { continue }
                    instructionCount += entry.instructionCount
                    out.append(json)
                }
                cursor = DownloadCursor(serverVersion: last.serverVersion, clientVersion: uploadAck)
                if !heldCreates.isEmpty { heldCreates = heldCreates.filter { $0.key > cursor.serverVersion } }
                if cursor.serverVersion >= formerViewUntil { formerView = nil }
                await writer.send(text: ServerMessage.downloadText(
                    session: id, cursor: cursor, latestServerVersion: latest, uploadAck: uploadAck,
                    queryVersion: view.queryVersion, batch: .steadyState, changesetJSON: out))
                engine.metrics.downloaded(instructions: instructionCount)
            }
        } catch {
            logger.error("download failed: \(error)")
            await fail(SyncProtocolError(.otherSessionError, "Internal server error while downloading; the session will be retried"))
        }
    }

    /// One changeset as a view sees it: its download JSON and instruction count, or no JSON when nothing of it
    /// is visible.
    static func download(
        _ changeset: ServerChangeset, view: SessionView, forced: Bool, former: SessionView?, held: HeldCreates?
    ) -> DownloadCache.Entry {
        let draft = changeset.draft
        // The uploader's own changeset of new objects (the usual upload): nothing of it comes back, and looking at
        // each change (a copy of it each) was a few percent of a large upload's server time.
        if case .all? = held, !draft.changes.contains(where: { !$0.isCreate }) {
            return DownloadCache.Entry(json: nil, instructionCount: 0)
        }
        let instructions = draft.changes.compactMap { change -> DownloadInstruction? in
            if let held, held.contains(change) {
                return nil
            }
            return view.instruction(for: change, forced: forced, formerView: former)
        }
        guard !instructions.isEmpty else { return DownloadCache.Entry(json: nil, instructionCount: 0) }
        var json: [UInt8] = []
        json.reserveCapacity(64 * instructions.count)
        DownloadChangeset(
            serverVersion: changeset.serverVersion, originFileIdent: draft.originFileIdent,
            originClientVersion: draft.originClientVersion,
            timestamp: draft.timestamp.millisecondsSince1970, instructions: instructions
        ).writeJSON(to: &json)
        return DownloadCache.Entry(json: json, instructionCount: instructions.count)
    }

    /// Sends error 231 for a compensating write (the seed page's message; reasons per rejected object).
    private func announce(_ compensation: Compensation, serverVersion: Int64) async {
        let info = SyncErrorInfo(
            session: id, code: .compensatingWrite, message: SyncEngine.compensatingWriteMessage, tryAgain: true,
            action: .warning,
            rejectedUpdates: compensation.rejections,
            compensatingWriteServerVersion: serverVersion, rejectedClientVersion: compensation.rejectedClientVersion)
        await writer.send(.error(info))
    }

    /// Sends the bootstrap of a new subscription set: every document now in view in full, and a removal for
    /// every document that was in the old view only. All batches but the last say `moreToCome`; the client applies
    /// them together when the last arrives.
    ///
    /// Collections are read a page at a time (``ServerStorage/documents(appId:collection:after:limit:)``) and
    /// batches go out as they fill, so the client reads one while the next is made, and the server never holds a
    /// whole collection. A collection the new view sees whole (``SessionView/seesWholeCollection(_:)``: a query
    /// that matches everything, a role that reads everything) is read as stored text
    /// (``ServerStorage/documentTexts(appId:collection:after:limit:)``) and sent as it is, without parsing and
    /// writing each document again. The documents are read after the downloads up to the cursor were sent, so they may
    /// already reflect later changes (each page those committed when it was read). Returns the server version
    /// they reflect at most: until the client has downloaded it, a change that removed a document from the old
    /// view also removes it from the client (a bootstrap cannot remove what it no longer sees).
    @discardableResult
    func sendBootstrap(from old: SessionView, to new: SessionView) async throws -> Int64 {
        let collections = Set(old.queries.keys).union(new.queries.keys).sorted()
        let latest = try await engine.hub.latestVersion(appId: user.appId)
        let size = SyncProtocolLimits.maxInstructionsPerDownload
        var ready: [BootstrapInstruction]?
        var filling: [BootstrapInstruction] = []
        filling.reserveCapacity(size)
        func send(_ instructions: [BootstrapInstruction], isLast: Bool) async {
            var changesets: [[UInt8]] = []
            if !instructions.isEmpty {
                var json: [UInt8] = []
                json.reserveCapacity(instructions.count * 128)
                DownloadChangeset.writeJSON(
                    serverVersion: cursor.serverVersion, originFileIdent: 0, originClientVersion: 0,
                    timestamp: Int64(Date().timeIntervalSince1970 * 1000), to: &json
                ) { out in writeJSONArray(instructions, to: &out) { $0.writeJSON(to: &$1) } }
                changesets.append(json)
            }
            await writer.send(text: ServerMessage.downloadText(
                session: id, cursor: cursor, latestServerVersion: latest, uploadAck: uploadAck,
                queryVersion: new.queryVersion, batch: isLast ? .lastInBatch : .moreToCome, changesetJSON: changesets))
        }
        func append(_ instruction: BootstrapInstruction) async {
            filling.append(instruction)
            if filling.count == size {
                // The batch before is sent now that a later one exists (the last one must say so).
                if let ready { await send(ready, isLast: false) }
                ready = filling
                filling = []
                filling.reserveCapacity(size)
            }
        }
        for collection in collections {
            // A session that sees every document whole gets the stored texts as they are (no reading, no writing).
            let whole = new.seesWholeCollection(collection)
            var after: String?
            while true {
                let count: Int
                if whole {
                    let page = try await engine.storage.documentTexts(
                        appId: user.appId, collection: collection, after: after, limit: Self.bootstrapPageSize)
                    for stored in page { await append(.stored(className: collection, stored)) }
                    count = page.count
                    after = page.last?.key
                } else {
                    let page = try await engine.storage.documents(
                        appId: user.appId, collection: collection, after: after, limit: Self.bootstrapPageSize)
                    for stored in page {
                        let document = stored.document
                        guard let pk = document["_id"] else { continue }
                        if new.isVisible(collection, document) {
                            await append(.instruction(
                                .upsert(className: collection, primaryKey: pk, fields: new.readableFields(collection, document))))
                        } else if old.isVisible(collection, document) {
                            await append(.instruction(.erase(className: collection, primaryKey: pk)))
                        }
                    }
                    count = page.count
                    after = page.last?.key
                }
                guard count == Self.bootstrapPageSize else { break }
            }
        }
        // Read after the documents: every change they reflect has a version up to this one.
        let reflected = try await engine.storage.latestServerVersion(appId: user.appId)
        // The last message holds the last instructions (or none at all when there are none).
        if filling.isEmpty, let full = ready {
            await send(full, isLast: true)
        } else {
            if let ready { await send(ready, isLast: false) }
            await send(filling, isLast: true)
        }
        return reflected
    }

    /// One instruction of a bootstrap: built from a read document, or a stored document's text sent as it is.
    enum BootstrapInstruction {
        case instruction(DownloadInstruction)
        /// An upsert of the whole stored document: the same bytes as `.upsert` of the parsed document.
        case stored(className: String, StoredDocumentText)

        func writeJSON(to out: inout [UInt8]) {
            switch self {
            case .instruction(let instruction):
                instruction.writeJSON(to: &out)
            case .stored(let className, let stored):
                DownloadInstruction.writeUpsert(className: className, fieldsText: stored.text, primaryKeyText: stored.key, to: &out)
            }
        }
    }

    /// How many documents a bootstrap reads at a time.
    static let bootstrapPageSize = 1_000
}
