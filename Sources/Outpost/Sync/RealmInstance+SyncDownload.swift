import Foundation
import OutpostCore

/// Local changes not yet integrated by the server, which a download must not overwrite: downloaded values are
/// applied underneath them (the local change is re-applied on top, i.e. kept), so that once the server has
/// integrated the upload, the value it sends back is the one every client converges on.
///
/// Keeping a field usually means not writing it. When a download creates the object again (it was erased by an
/// earlier change of the same download), the local values are gone from the file, so the pending values are
/// written instead (`values`).
struct PendingLocalChanges {
    private var fields: [String: Set<String>] = [:]
    private var erased: Set<String> = []
    private var created: Set<String> = []
    /// The latest pending whole value of each field set or created locally.
    private var values: [String: [String: Value]] = [:]

    static func key(_ className: String, _ pk: Value) -> String { className + "\u{0}" + pk.extendedJSONText }

    init(_ instructions: [SyncInstruction]) {
        for instruction in instructions {
            let key = Self.key(instruction.className, instruction.primaryKey)
            switch instruction {
            case .erase:
                erased.insert(key)
                created.remove(key)
                fields[key] = nil
                values[key] = nil
            case .create(_, _, let document):
                erased.remove(key)
                created.insert(key)
                fields[key, default: []].formUnion(document.fields.keys)
                values[key, default: [:]].merge(document.fields) { _, new in new }
            case .set(_, _, let field, let value):
                fields[key, default: []].insert(field)
                values[key, default: [:]][field] = value
            default:
                // An element-wise change: the field's whole value is not known here.
                if let field = instruction.field {
                    fields[key, default: []].insert(field)
                    values[key]?[field] = nil
                }
            }
        }
    }

    /// No local change is pending.
    var isEmpty: Bool { fields.isEmpty && erased.isEmpty && created.isEmpty }
    func isErased(_ key: String) -> Bool { erased.contains(key) }
    func isCreated(_ key: String) -> Bool { created.contains(key) }
    func fields(_ key: String) -> Set<String> { fields[key] ?? [] }
    func values(_ key: String) -> [String: Value] { values[key] ?? [:] }
}

extension RealmInstance {
    /// What applying a download met, for the session's log.
    struct SyncDownloadReport: Sendable {
        /// Changes that could not be applied (warnings).
        var problems: [String] = []
        /// Downloaded changes left underneath a pending local change (trace).
        var kept: [String] = []
    }

    /// Applies downloaded changesets in one write transaction, with the upload acknowledgement and the new cursor,
    /// so a crash leaves either all of it or none.
    ///
    /// - Parameter rejections: the refused writes (by client version) whose revert this download applies, recorded
    ///   with it (``SyncFile/recordRejections(_:)``).
    /// - Parameter finishesReset: the download completes a client reset (``syncBeginClientReset(_:)``): it holds the
    ///   server's whole data for the file, so what else the file holds goes, except the objects created by the queued
    ///   transactions (all of them, acknowledged by this download or not: their objects may be missing from it),
    ///   and the reset's mark is cleared.
    func syncApplyDownload(_ changesets: [DownloadChangeset], cursor: DownloadCursor, uploadAck: Int64,
                           bootstrappedQueryVersion: Int64?, rejections: [(Int64, [RejectedUpdate])] = [],
                           finishesReset: Bool = false) throws -> SyncDownloadReport {
        try syncApplyDownload(HeldDownloads(), then: changesets, cursor: cursor, uploadAck: uploadAck,
                              bootstrappedQueryVersion: bootstrappedQueryVersion, rejections: rejections,
                              finishesReset: finishesReset)
    }

    /// Applies the held downloads (``HeldDownloads``: the parsed ones, then those stored in the file, read one
    /// message at a time), then `changesets`, in one write transaction as above; the stored ones are deleted with it.
    func syncApplyDownload(_ held: HeldDownloads, then changesets: [DownloadChangeset], cursor: DownloadCursor,
                           uploadAck: Int64, bootstrappedQueryVersion: Int64?,
                           rejections: [(Int64, [RejectedUpdate])] = [],
                           finishesReset: Bool = false) throws -> SyncDownloadReport {
        var report = SyncDownloadReport()
        syncRecorder?.isApplyingDownload = true
        defer { syncRecorder?.isApplyingDownload = false }
        // An acknowledgement alone (the usual answer to an upload) is not made durable on its own: lost in a crash
        // of the machine, the transactions are uploaded again and the server skips them as integrated, and the
        // cursor's server versions are downloaded again. It reaches the disk with the next durable commit. This
        // spares the user's writes an `fdatasync` and a wait for the write lock per acknowledgement.
        let acknowledgementOnly = held.isEmpty && changesets.allSatisfy(\.instructions.isEmpty)
            && bootstrappedQueryVersion == nil && rejections.isEmpty && !finishesReset
        try beginWrite(durable: !acknowledgementOnly)
        do {
            let file = syncFile
            let queuedBeforeAck = finishesReset ? PendingLocalChanges(try file.pendingInstructions(after: 0)) : nil
            try file.acknowledge(through: uploadAck)
            // Read only for a download with instructions: an acknowledgement alone (the usual answer to an upload)
            // must not re-read every queued transaction — that made uploading many transactions quadratic.
            let newInstructions = changesets.reduce(0) { $0 + $1.instructions.count }
            let pending = bootstrappedQueryVersion != nil || held.instructionCount + newInstructions > 0
                ? PendingLocalChanges(try file.pendingInstructions(after: uploadAck))
                : PendingLocalChanges([])
            // A bootstrap holds every object of the new view: what else the file holds goes (see `syncSweep`).
            var sweep = bootstrappedQueryVersion == nil && !finishesReset ? nil : BootstrapSweep(tables: syncTablesHoldingObjects())
            var newRows = SyncNewRows(capacity: held.instructionCount + newInstructions)
            func apply(_ changeset: DownloadChangeset) {
                syncApply(changeset, pending: pending, sweep: &sweep, newRows: &newRows, report: &report)
            }
            for changeset in held.parsed { apply(changeset) }
            if held.stored > 0 {
                try HeldDownloads.forEachStored(in: file) { stored in
                    for changeset in stored { apply(changeset) }
                }
                try file.dropHeldDownloads()
            }
            for changeset in changesets { apply(changeset) }
            if let sweep {
                syncSweep(sweep, keeping: queuedBeforeAck ?? pending,
                          what: bootstrappedQueryVersion.map { "query version \($0)" } ?? "client reset", into: &report)
            }
            if finishesReset { try file.clearClientReset() }
            try file.setCursor(cursor)
            if !rejections.isEmpty { try file.recordRejections(rejections) }
            if let q = bootstrappedQueryVersion { try file.setAwaitingMark(q) }
            try commitWrite()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        return report
    }

    /// Applies one downloaded changeset inside the open write transaction: upserts and erases, under the pending
    /// local changes (`pending`), noting the bootstrap's objects in `sweep` and new rows of empty tables in `newRows`.
    func syncApply(_ changeset: DownloadChangeset, pending: PendingLocalChanges, sweep: inout BootstrapSweep?,
                   newRows: inout SyncNewRows, report: inout SyncDownloadReport) {
        for instruction in changeset.instructions {
            // Asymmetric objects are never downloaded (a server that does not know the table as asymmetric may echo
            // its creates back).
            guard let table = table(named: instruction.className), !table.schema.isEmbedded, !table.schema.isAsymmetric
            else { continue }
            let key = pending.isEmpty ? "" : PendingLocalChanges.key(instruction.className, instruction.primaryKey)
            var object: String { "\(instruction.className) \(instruction.primaryKey.subscriptionText)" }
            switch instruction {
            case .upsert(_, let pk, let fields):
                sweep?.note(table, pk)
                // A new object in a table that was empty (a bootstrap): straight to the insert buffer.
                if pending.isEmpty && syncInsertNew(table, primaryKey: pk, fields: fields, into: &newRows) {
                    continue
                }
                if pending.isErased(key) {
                    report.kept.append("server version \(changeset.serverVersion): \(object) stays deleted")
                    continue
                }
                let skip = pending.fields(key)
                let kept = skip.intersection(fields.fields.keys)
                if !kept.isEmpty {
                    report.kept.append("server version \(changeset.serverVersion): \(object) keeps local \(kept.sorted())")
                }
                syncUpsert(table, primaryKey: pk, fields: fields, skip: skip, localValues: pending.values(key))
            case .erase(_, let pk):
                if pending.isCreated(key) {
                    report.kept.append("server version \(changeset.serverVersion): \(object) stays created")
                    continue
                }
                syncErase(table, primaryKey: pk)
            }
            if let error = pendingError {
                report.problems.append("\(instruction.className) \(instruction.primaryKey.subscriptionText): \(error.message)")
                pendingError = nil
            }
        }
    }
}
