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
        if await skipHistorySeeingNothing(upTo: upTo) { return }
        do {
            let (latest, first) = try await engine.hub.catchUp(
                appId: user.appId, after: cursor.serverVersion, upTo: upTo, limit: 256)
            var prefetched: [ServerChangeset]? = first
            if always && cursor.serverVersion >= latest {
                dropAnnouncedCompensations()
                cursor.clientVersion = sentUploadAck
                await writer.send(.download(DownloadMessage(
                    session: id, cursor: cursor, latestServerVersion: latest, uploadAck: sentUploadAck,
                    queryVersion: view.queryVersion, batch: .steadyState, changesets: [])))
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
                var message = DownloadMessageFill()
                for changeset in batch {
                    let draft = changeset.draft
                    defer { message.reach(changeset) }
                    if let audience = draft.audience, audience != fileIdent { continue }
                    // How far the message may acknowledge once it holds this changeset: an own changeset's version
                    // less one (a compensation for that version may follow, in this message or a later one), a
                    // compensation's version (its 231 goes out first). Applied once the changeset is in the message.
                    var carries: Int64 = draft.originFileIdent == fileIdent ? draft.originClientVersion - 1 : 0
                    let forced = draft.audience != nil
                    let former = changeset.serverVersion <= formerViewUntil ? formerView : nil
                    let held = heldCreates.isEmpty ? nil : heldCreates.removeValue(forKey: changeset.serverVersion)
                    if let compensation = draft.compensation, draft.audience == fileIdent {
                        await announce(compensation, serverVersion: changeset.serverVersion)
                        carries = max(carries, compensation.rejectedClientVersion)
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
                    guard let json = entry.json else {
                        message.integrated = max(message.integrated, carries)
                        continue
                    }
                    if message.bytes + json.count > SyncProtocolLimits.maxDownloadBytes, !message.isEmpty {
                        await sendDownload(&message, latest: latest)
                    }
                    if json.count > SyncProtocolLimits.maxDownloadBytes {
                        // One changeset larger than a message: sent in parts that the client applies together.
                        let parts = Self.downloadParts(changeset, view: view, forced: forced, former: former, held: held)
                        for part in parts.dropLast() {
                            await writer.send(text: ServerMessage.downloadText(
                                session: id, cursor: cursor, latestServerVersion: latest, uploadAck: sentUploadAck,
                                queryVersion: view.queryVersion, batch: .moreToCome, changesetJSON: [part]))
                        }
                        message.changesets = [parts.last!]
                    } else {
                        message.changesets.append(json)
                    }
                    message.bytes += json.count
                    message.instructions += entry.instructionCount
                    message.integrated = max(message.integrated, carries)
                }
                message.reach(last)
                await sendDownload(&message, latest: latest)
            }
        } catch {
            logger.error("download failed: \(error)")
            await fail(SyncProtocolError(.otherSessionError, "Internal server error while downloading; the session will be retried"))
        }
    }

    /// A file that has uploaded nothing and has no subscriptions (a new device, until its first bootstrap): no
    /// changeset of the history since its cursor holds anything for it — no change it may see, none of its own, no
    /// compensation addressed to it. Its cursor moves to the latest version in one download, without reading that
    /// history (which for a new device of a large app was most of its first open: a million objects' changesets read
    /// and parsed, at bind and again before the bootstrap, to send nothing). Returns false, having sent nothing, when
    /// the usual download is needed.
    private func skipHistorySeeingNothing(upTo: Int64?) async -> Bool {
        guard upTo == nil, settings.mode == .flexible, view.queries.isEmpty, uploadAck == 0, formerView == nil,
            heldCreates.isEmpty, unannouncedCompensations.isEmpty
        else { return false }
        do {
            let latest = try await engine.hub.latestVersion(appId: user.appId)
            guard latest > cursor.serverVersion,
                let last = try await engine.hub.changesets(appId: user.appId, after: latest - 1, upTo: latest, limit: 1).first
            else { return false }
            var message = DownloadMessageFill()
            message.reach(last)
            await sendDownload(&message, latest: latest)
            return true
        } catch {
            return false  // the usual download reads the history and reports what fails
        }
    }

    /// The acknowledgement a download carries: ``uploadAck``, but below the client version of the first compensating
    /// write not yet announced. A client that learnt a version was integrated before learning it was refused would
    /// answer `verdict(forTransaction:)` with `.accepted`: the 231 must come first. (An upload integrated in one
    /// transaction may be downloaded in several messages; its compensations come in the later ones.)
    var sentUploadAck: Int64 {
        guard let first = unannouncedCompensations.first else { return uploadAck }
        return min(uploadAck, first.clientVersion - 1)
    }

    /// Forgets the compensations the cursor has passed: the download loop announced them, and a message that
    /// reaches one holds it.
    private func dropAnnouncedCompensations() {
        unannouncedCompensations.removeAll { $0.serverVersion <= cursor.serverVersion }
    }

    /// The changesets of the download message being filled, and the server version it reaches.
    struct DownloadMessageFill {
        var changesets: [[UInt8]] = []
        var bytes = 0
        var instructions = 0
        /// The last server version looked at: the message's cursor.
        var through: Int64 = 0
        /// That version's changeset, for its salt (``ServerChangeset/salt``, worked out only when the message goes).
        var throughChangeset: ServerChangeset?
        /// The highest client version of this file the message's changesets integrate or refuse (its own changesets
        /// and the compensations addressed to it): the message acknowledges at least that far.
        var integrated: Int64 = 0
        var isEmpty: Bool { changesets.isEmpty }

        /// The message has looked at `changeset`.
        mutating func reach(_ changeset: ServerChangeset) {
            through = changeset.serverVersion
            throughChangeset = changeset
        }
    }

    /// Sends the filled message (even with no changesets: the cursor moves) and starts an empty one.
    private func sendDownload(_ message: inout DownloadMessageFill, latest: Int64) async {
        // A download may carry this file's changesets before the upload that made them is acknowledged: they are
        // committed (durable) and the session's download ran — woken by the commit — while the upload's
        // transaction returned. The acknowledgement must cover them, or the client would keep those writes as
        // pending and leave the download's changes to them (a compensating removal among them) underneath.
        uploadAck = max(uploadAck, message.integrated)
        if message.through > cursor.serverVersion {
            cursor.serverVersion = message.through
            cursor.salt = message.throughChangeset?.salt
        }
        dropAnnouncedCompensations()
        cursor.clientVersion = sentUploadAck
        if !heldCreates.isEmpty { heldCreates = heldCreates.filter { $0.key > cursor.serverVersion } }
        if cursor.serverVersion >= formerViewUntil { formerView = nil }
        await writer.send(text: ServerMessage.downloadText(
            session: id, cursor: cursor, latestServerVersion: latest, uploadAck: sentUploadAck,
            queryVersion: view.queryVersion, batch: .steadyState, changesetJSON: message.changesets))
        engine.metrics.downloaded(instructions: message.instructions)
        message = DownloadMessageFill(through: message.through, throughChangeset: message.throughChangeset)
    }

    /// A changeset larger than ``SyncProtocolLimits/maxDownloadBytes`` as a view sees it, in parts of at most that
    /// many bytes each (one instruction larger than that is a part of its own): each part is the changeset's
    /// header with some of its instructions.
    static func downloadParts(
        _ changeset: ServerChangeset, view: SessionView, forced: Bool, former: SessionView?, held: HeldCreates?
    ) -> [[UInt8]] {
        let draft = changeset.draft
        var groups: [[[UInt8]]] = [[]]
        var bytes = 0
        for instruction in instructions(of: changeset, view: view, forced: forced, former: former, held: held) {
            var json: [UInt8] = []
            instruction.writeJSON(to: &json)
            if bytes + json.count > SyncProtocolLimits.maxDownloadBytes, !groups[groups.count - 1].isEmpty {
                groups.append([])
                bytes = 0
            }
            groups[groups.count - 1].append(json)
            bytes += json.count + 1
        }
        return groups.map { group in
            var json: [UInt8] = []
            DownloadChangeset.writeJSON(
                serverVersion: changeset.serverVersion, originFileIdent: draft.originFileIdent,
                originClientVersion: draft.originClientVersion, timestamp: draft.timestamp.millisecondsSince1970, to: &json
            ) { out in writeJSONArray(group, to: &out) { $1.append(contentsOf: $0) } }
            return json
        }
    }

    /// The instructions of one changeset that a view sees.
    private static func instructions(
        of changeset: ServerChangeset, view: SessionView, forced: Bool, former: SessionView?, held: HeldCreates?
    ) -> [DownloadInstruction] {
        changeset.draft.changes.compactMap { change -> DownloadInstruction? in
            if let held, held.contains(change) {
                return nil
            }
            return view.instruction(for: change, forced: forced, formerView: former)
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
        let instructions = instructions(of: changeset, view: view, forced: forced, former: former, held: held)
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
    /// Collections are read a page at a time (``DocumentStorage/documents(appId:collection:after:limit:)``) and
    /// batches go out as they fill, so the client reads one while the next is made, and the server never holds a
    /// whole collection. A collection the new view sees whole (``SessionView/seesWholeCollection(_:)``: a query
    /// that matches everything, a role that reads everything) is read as stored text
    /// (``DocumentStorage/documentTexts(appId:collection:after:limit:)``) and sent as it is, without parsing and
    /// writing each document again. The documents are read after the downloads up to the cursor were sent, so they may
    /// already reflect later changes (each page those committed when it was read). Returns the server version
    /// they reflect at most: until the client has downloaded it, a change that removed a document from the old
    /// view also removes it from the client (a bootstrap cannot remove what it no longer sees).
    @discardableResult
    func sendBootstrap(from old: SessionView, to new: SessionView) async throws -> Int64 {
        let collections = Set(old.queries.keys).union(new.queries.keys).sorted()
        let latest = try await engine.hub.latestVersion(appId: user.appId)
        // Each batch is its instructions' JSON, written as they come (comma-separated), and how many there are.
        var ready: BootstrapBatch?
        var filling = BootstrapBatch()
        var scratch: [UInt8] = []
        func send(_ batch: BootstrapBatch, isLast: Bool) async {
            var changesets: [[UInt8]] = []
            if batch.count > 0 {
                var json: [UInt8] = []
                json.reserveCapacity(batch.json.count + 256)
                DownloadChangeset.writeJSON(
                    serverVersion: cursor.serverVersion, originFileIdent: 0, originClientVersion: 0,
                    timestamp: Int64(Date().timeIntervalSince1970 * 1000), to: &json
                ) { out in
                    out.append(UInt8(ascii: "["))
                    out.append(contentsOf: batch.json)
                    out.append(UInt8(ascii: "]"))
                }
                changesets.append(json)
            }
            await writer.send(text: ServerMessage.downloadText(
                session: id, cursor: cursor, latestServerVersion: latest, uploadAck: sentUploadAck,
                queryVersion: new.queryVersion, batch: isLast ? .lastInBatch : .moreToCome, changesetJSON: changesets))
        }
        /// Starts a new batch; the batch before is sent now that a later one exists (the last one must say so).
        func rotate() async {
            if let ready { await send(ready, isLast: false) }
            ready = filling
            filling = BootstrapBatch()
        }
        func append(_ instruction: BootstrapInstruction) async {
            scratch.removeAll(keepingCapacity: true)
            instruction.writeJSON(to: &scratch)
            // A batch holds at most so many instructions and bytes (one larger instruction is a batch of its own).
            if filling.count > 0, filling.json.count + scratch.count + 1 > SyncProtocolLimits.maxDownloadBytes {
                await rotate()
            }
            if filling.count > 0 { filling.json.append(UInt8(ascii: ",")) }
            filling.json.append(contentsOf: scratch)
            filling.count += 1
            if filling.count == SyncProtocolLimits.maxInstructionsPerDownload { await rotate() }
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
        if filling.count == 0, let full = ready {
            await send(full, isLast: true)
        } else {
            if let ready { await send(ready, isLast: false) }
            await send(filling, isLast: true)
        }
        return reflected
    }

    /// Instructions of a bootstrap written for one download message: their JSON, comma-separated, and their count.
    struct BootstrapBatch {
        var json: [UInt8] = []
        var count = 0
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
