import Foundation
import OutpostCore

extension ServerSession {
    /// An upload whose changesets are integrated and whose writes are queued for commit.
    struct IntegratedUpload: Sendable {
        var changesets: Int
        var instructions: Int
        var transaction: PendingTransaction<IntegrationOutcome>
    }

    enum UploadStart: Sendable {
        /// Every changeset was acknowledged already: only downloads are due.
        case nothingNew
        case integrated(IntegratedUpload)
    }

    /// Integrates uploaded changesets in one storage transaction, queued for commit: changesets already integrated
    /// are skipped (uploads are idempotent per file and client version); each object's change is judged; legal
    /// changes are applied and recorded; illegal ones are recorded as a compensating changeset for this file alone.
    ///
    /// Nothing is acknowledged or announced here: the session may integrate its next uploads while these commit
    /// (docs/protocol.md §6), and ``finishUpload(_:)`` acts on them once they are durable.
    ///
    /// - Parameter written: the fields `changesets` write (``SchemaGuard/writtenFields(_:)``), when the caller has them
    ///   already; they may include changesets integrated before, which passed the schema then.
    func beginUpload(_ changesets: [UploadChangeset], written: [String: [String: Value]]? = nil) async throws -> UploadStart {
        var fresh = changesets.filter { $0.clientVersion > uploadAck }.sorted { $0.clientVersion < $1.clientVersion }
        guard !fresh.isEmpty else { return .nothingNew }
        fresh = try checkPartition(fresh)
        try await engine.checkSchema(settings: settings, written: written ?? SchemaGuard.writtenFields(fresh))

        let file = fileIdent
        let view = self.view!
        let changesetsToIntegrate = fresh
        let transaction = try await engine.storage.queuedTransaction(appId: user.appId) { tx in
            try await Self.integrate(changesetsToIntegrate, file: file, view: view, tx: tx)
        }
        return .integrated(IntegratedUpload(
            changesets: fresh.count, instructions: fresh.reduce(0) { $0 + $1.instructions.count }, transaction: transaction))
    }

    /// Waits until an integrated upload is durable, then acknowledges it: compensating writes are logged, the
    /// app's other sessions are woken, and this client gets its downloads with the new acknowledgement.
    ///
    /// - Parameter beforeLaterUpload: the session has integrated a later upload already, which may have committed
    ///   too: the downloads stop at this upload's changes, so that the later one's own creates are not sent back
    ///   before ``noteCreatesHeldByUploader(_:downloadedBefore:)`` has seen them (its own finish sends them).
    func finishUpload(_ upload: IntegratedUpload, beforeLaterUpload: Bool = false) async throws {
        let hub = engine.hub
        let appId = user.appId
        let outcome = try await upload.transaction.committed { outcome in
            await hub.record(appId: appId, outcome.appended)
        }
        // Every download sent so far acknowledged less than this upload: the client protected its pending
        // changes from the changes in them.
        let downloadedBefore = cursor.serverVersion
        uploadAck = max(uploadAck, outcome.integratedVersion)
        for changeset in outcome.appended where changeset.draft.audience == fileIdent {
            if let compensation = changeset.draft.compensation {
                unannouncedCompensations.append((changeset.serverVersion, compensation.rejectedClientVersion))
            }
        }
        engine.metrics.uploaded(changesets: upload.changesets, rejected: outcome.rejections.count)
        let file = fileIdent
        for (clientVersion, rejection) in outcome.rejections {
            let line = "\"\(rejection.table)\": { \"\(rejection.primaryKey.plainText)\": \"\(rejection.reason.replacingOccurrences(of: "\"", with: "\\\""))\" }"
            logger.info("compensating write for client version \(clientVersion): \(line)")
            await engine.log(appId: user.appId, kind: "compensating_write", level: "info", line, details: .document([
                "table": .string(rejection.table), "pk": rejection.primaryKey, "reason": .string(rejection.reason),
                "clientFile": .int(file), "clientVersion": .int(clientVersion), "userId": .string(user.userId),
            ]))
        }
        await noteCreatesHeldByUploader(outcome.appended, downloadedBefore: downloadedBefore)
        if let version = outcome.latestVersion {
            await engine.hub.announce(ChangeNotification(appId: user.appId, serverVersion: version))
        }
        await sendDownloads(always: true, upTo: beforeLaterUpload ? max(outcome.latestVersion ?? 0, cursor.serverVersion) : nil)
    }

    /// Finds the objects this upload created that the client need not download back (flexible sync).
    ///
    /// Own changes normally come back so that merges converge (docs/protocol.md §4). An object the client created
    /// that did not exist on the server is stored as the client's own instructions applied to nothing — what its
    /// file holds already — unless a download applied underneath it changes it first: the client applies the
    /// changes of a download that acknowledges this upload without protecting the upload's changes, so any
    /// change to the same object after `downloadedBefore` and before the create (another client's, or an earlier
    /// one of this upload) keeps the create's echo. In partition-based sync the server may fill in the partition
    /// key of a created object, so creates always come back there.
    private func noteCreatesHeldByUploader(_ appended: [ServerChangeset], downloadedBefore: Int64) async {
        guard settings.mode == .flexible, let last = appended.last?.serverVersion, last - downloadedBefore <= 1_024,
            let history = try? await engine.hub.changesets(appId: user.appId, after: downloadedBefore, upTo: last, limit: 1_025),
            history.last?.serverVersion == last
        else { return }
        let own = Set(appended.filter { $0.draft.audience == nil && $0.draft.originFileIdent == fileIdent }.map(\.serverVersion))
        // When every change in the range creates an object, no object is changed twice in it (a second create of
        // the same object needs a delete between): all creates of this upload are held, without a set of keys.
        if history.allSatisfy({ $0.draft.changes.allSatisfy(\.isCreate) }) {
            for changeset in history where own.contains(changeset.serverVersion) && !changeset.draft.changes.isEmpty {
                heldCreates[changeset.serverVersion] = .all
            }
            return
        }
        var touched = Set<ObjectKey>()
        for changeset in history {
            if own.contains(changeset.serverVersion) {
                var held = Set<ObjectKey>()
                for change in changeset.draft.changes where change.isCreate {
                    let key = ObjectKey(collection: change.collection, primaryKey: change.primaryKey)
                    if !touched.contains(key) { held.insert(key) }
                }
                if !held.isEmpty { heldCreates[changeset.serverVersion] = .some(held) }
            }
            for change in changeset.draft.changes {
                touched.insert(ObjectKey(collection: change.collection, primaryKey: change.primaryKey))
            }
        }
    }

    struct IntegrationOutcome: Sendable {
        var integratedVersion: Int64
        var latestVersion: Int64?
        /// The changesets the transaction appended, with their versions.
        var appended: [ServerChangeset] = []
        var rejections: [(Int64, Compensation.Rejection)]
    }

    struct ObjectKey: Hashable {
        var collection: String
        var primaryKey: Value
    }

    /// The creates of one changeset that its uploader is not sent back: all of them, or those of these objects.
    enum HeldCreates {
        case all
        case some(Set<ObjectKey>)

        func contains(_ change: DocumentChange) -> Bool {
            switch self {
            case .all: change.isCreate
            case .some(let keys): keys.contains(ObjectKey(collection: change.collection, primaryKey: change.primaryKey))
            }
        }
    }

    static func integrate(
        _ changesets: [UploadChangeset], file: Int64, view: SessionView, tx: any StorageTransaction
    ) async throws -> IntegrationOutcome {
        let integrated = try await tx.integratedClientVersion(fileIdent: file)
        var outcome = IntegrationOutcome(integratedVersion: integrated, latestVersion: nil, rejections: [])
        let judge = WriteJudge(view: view)
        let pending = changesets.filter { $0.clientVersion > integrated }
        var working = WorkingObjects()
        let grouped = try await groupAndLoad(pending, into: &working, tx: tx)
        // Above everything integrated so far, including earlier changesets of this call: a client version that
        // comes twice (uploads integrated together that overlap) is applied once.
        for (changeset, objects) in zip(pending, grouped) where changeset.clientVersion > outcome.integratedVersion {
            var accepted: [DocumentChange] = []
            var compensations: [DocumentChange] = []
            var rejections: [Compensation.Rejection] = []
            accepted.reserveCapacity(objects.count)
            for object in objects {
                let key = working.keys[object.slot]
                let stored = working.documents[object.slot]
                // Another partition's document is absent for this session: a set or erase of it changes nothing,
                // as for a key that does not exist (no oracle), and a create of its key is refused, its key taken.
                let isElsewhere = stored.map { judge.isInAnotherPartition(key.collection, $0) } ?? false
                // Asymmetric objects are inserted once; a later write to one that exists is dropped, and they are
                // not recorded in the history (nothing of them is downloaded).
                let isAsymmetric = view.settings.asymmetricTables.contains(key.collection)
                if isAsymmetric && stored != nil { continue }
                let before = isElsewhere ? nil : stored
                let result = InstructionApplier.applySorted(object.instructions, to: before)
                guard result.document != before else { continue }
                var reason = isElsewhere
                    ? WriteJudge.outsideView(key.collection, key.primaryKey)
                    : judge.reason(collection: key.collection, primaryKey: key.primaryKey, before: before,
                                   after: result.document, changed: result.changedFields)
                // The document is written once, here, for both the `documents` table and the history.
                var text: String?
                if reason == nil, let after = result.document {
                    let written = object.storedText(before: before) ?? after.extendedJSONText
                    if written.utf8.count > SyncProtocolLimits.maxDocumentBytes {
                        reason = Self.tooLarge(collection: key.collection, primaryKey: key.primaryKey, bytes: written.utf8.count)
                    }
                    text = written
                }
                if let reason {
                    rejections.append(.init(table: key.collection, primaryKey: key.primaryKey, reason: reason))
                    compensations.append(DocumentChange(collection: key.collection, primaryKey: key.primaryKey,
                                                        before: nil, after: stored, changedFields: []))
                    continue
                }
                if let after = result.document, let text {
                    try await tx.putDocument(collection: key.collection, after, text: text)
                } else {
                    try await tx.deleteDocument(collection: key.collection, primaryKey: key.primaryKey)
                }
                working.documents[object.slot] = result.document
                if isAsymmetric { continue }
                var change = DocumentChange(collection: key.collection, primaryKey: key.primaryKey, before: before,
                                            after: result.document, changedFields: result.changedFields)
                change.afterText = text
                // A new object's document is made with its key as `_id` and all its fields changed.
                change.isWholeNewDocument = before == nil && result.document != nil
                accepted.append(change)
            }
            let timestamp = Date(timeIntervalSince1970: Double(changeset.timestamp) / 1000)
            if !accepted.isEmpty {
                let draft = ServerChangesetDraft(
                    originFileIdent: file, originClientVersion: changeset.clientVersion, timestamp: timestamp, changes: accepted)
                let version = try await tx.appendChangeset(draft)
                outcome.latestVersion = version
                outcome.appended.append(ServerChangeset(serverVersion: version, draft: draft))
            }
            if !rejections.isEmpty {
                let draft = ServerChangesetDraft(
                    originFileIdent: 0, originClientVersion: 0, timestamp: Date(), audience: file, changes: compensations,
                    compensation: Compensation(rejectedClientVersion: changeset.clientVersion, rejections: rejections))
                let version = try await tx.appendChangeset(draft)
                outcome.latestVersion = version
                outcome.appended.append(ServerChangeset(serverVersion: version, draft: draft))
                outcome.rejections += rejections.map { (changeset.clientVersion, $0) }
            }
            outcome.integratedVersion = changeset.clientVersion
        }
        try await tx.setIntegratedClientVersion(fileIdent: file, outcome.integratedVersion)
        return outcome
    }

    /// The reason a change is refused whose document would be larger than a download can carry
    /// (``SyncProtocolLimits/maxDocumentBytes``).
    static func tooLarge(collection: String, primaryKey: Value, bytes: Int) -> String {
        "write to \"\(primaryKey.plainText)\" in table \"\(collection)\" was denied: the object would be \(bytes) bytes, "
            + "more than the limit of \(SyncProtocolLimits.maxDocumentBytes) bytes"
    }

    /// The objects an integration touches, each numbered by a slot on first sight: its key and current state are
    /// kept in arrays by slot, so that an object is hashed once per instruction, not once per step (the
    /// dictionaries keyed by object were about 5 % of the server's time over a 100k-object upload).
    struct WorkingObjects {
        private var slots: [ObjectKey: Int] = [:]
        /// Each slot's object.
        private(set) var keys: [ObjectKey] = []
        /// Each slot's document as the integration has it so far; nil when it does not exist.
        var documents: [Document?] = []

        /// The object's slot, and whether it was new (its document starts as nil, to be loaded).
        mutating func slot(for key: ObjectKey) -> (slot: Int, isNew: Bool) {
            let next = keys.count
            let slot = slots.valueOrInsert(next, forKey: key)
            guard slot == next else { return (slot, false) }
            keys.append(key)
            documents.append(nil)
            return (slot, true)
        }

        func slot(ifKnown key: ObjectKey) -> Int? { slots[key] }

        mutating func reserveCapacity(_ capacity: Int) {
            slots.reserveCapacity(capacity)
            keys.reserveCapacity(capacity)
            documents.reserveCapacity(capacity)
        }
    }

    /// One object's instructions within a changeset.
    private struct ObjectInstructions {
        var slot: Int
        var instructions: [SyncInstruction] {
            didSet { createText = nil }
        }
        /// When the instructions are one create whose fields came in their stored form: that text
        /// (``UploadChangeset/createTexts``).
        var createText: String?

        init(slot: Int, instruction: SyncInstruction, createText: String?) {
            self.slot = slot
            instructions = [instruction]
            self.createText = createText
        }

        /// The text to store for the object, when it is the create's text as it came: the object did not exist,
        /// and the create's fields hold its primary key as `_id` (so they are the whole document).
        func storedText(before: Document?) -> String? {
            guard let createText, before == nil, case .create(_, let primaryKey, let fields)? = instructions.first,
                fields["_id"] == primaryKey
            else { return nil }
            return createText
        }
    }

    /// Groups each changeset's instructions per object, in the order of each object's first instruction, and
    /// puts every object they touch into `working`, loading the new ones with one query per collection for all
    /// changesets together.
    private static func groupAndLoad(
        _ changesets: [UploadChangeset], into working: inout WorkingObjects, tx: any StorageTransaction
    ) async throws -> [[ObjectInstructions]] {
        let instructionCount = changesets.reduce(0) { $0 + $1.instructions.count }
        working.reserveCapacity(instructionCount)
        var grouped: [[ObjectInstructions]] = []
        grouped.reserveCapacity(changesets.count)
        // For each slot, its position in the changeset being grouped, tagged with that changeset's number.
        var positions: [(changeset: Int, position: Int)] = []
        positions.reserveCapacity(instructionCount)
        var toLoad: [String: [Value]] = [:]
        for (number, changeset) in changesets.enumerated() {
            var objects: [ObjectInstructions] = []
            objects.reserveCapacity(changeset.instructions.count)
            for (i, instruction) in changeset.instructions.enumerated() {
                let key = ObjectKey(collection: instruction.className, primaryKey: instruction.primaryKey)
                let (slot, isNew) = working.slot(for: key)
                if isNew {
                    positions.append((-1, 0))
                    toLoad[key.collection, default: []].append(key.primaryKey)
                }
                if positions[slot].changeset == number {
                    objects[positions[slot].position].instructions.append(instruction)
                } else {
                    positions[slot] = (number, objects.count)
                    let text = changeset.createTexts.indices.contains(i) ? changeset.createTexts[i] : nil
                    objects.append(ObjectInstructions(slot: slot, instruction: instruction, createText: text))
                }
            }
            grouped.append(objects)
        }
        for (collection, primaryKeys) in toLoad {
            for (primaryKey, document) in try await tx.documents(collection: collection, primaryKeys: primaryKeys) {
                if let slot = working.slot(ifKnown: ObjectKey(collection: collection, primaryKey: primaryKey)) {
                    working.documents[slot] = document
                }
            }
        }
        return grouped
    }

    /// Partition-based sync: writes need the partition's write permission, and objects must carry the bound
    /// partition value in the partition key field (error 212 otherwise, as the original). Created objects without
    /// the field get it filled in.
    func checkPartition(_ changesets: [UploadChangeset]) throws(SyncProtocolError) -> [UploadChangeset] {
        guard settings.mode == .partition, let p = settings.partition else { return changesets }
        guard canWrite else {
            throw SyncProtocolError(.permissionDenied,
                "Permission denied (UPLOAD): user '\(user.userId)' may not write to partition '\((view.context.partition ?? .null).extendedJSON.text)'")
        }
        let expected = view.context.partition ?? .null
        for changeset in changesets {
            for instruction in changeset.instructions {
                let found: Value?
                switch instruction {
                case .create(_, _, let fields): found = fields[p.key]
                case .set(_, _, let f, let v) where f == p.key: found = v
                default: found = nil
                }
                if let found, found != expected {
                    throw SyncProtocolError(.badChangeset,
                        "failed to validate upload changesets: SET instruction had incorrect partition value for key \"\(p.key)\" { expectedPartition: \(expected.plainText), foundPartition: \(found.plainText) }")
                }
            }
        }
        return changesets.map { changeset in
            var changeset = changeset
            changeset.instructions = changeset.instructions.map { instruction in
                guard case .create(let c, let pk, var fields) = instruction, fields[p.key] == nil else { return instruction }
                fields[p.key] = expected
                return .create(className: c, primaryKey: pk, fields: fields)
            }
            return changeset
        }
    }
}
