import Foundation
import OutpostCore

/// A bootstrap applied as its batches arrive, in one write transaction that stays open from its first batch to its
/// last (docs/sync-client.md, "Streamed bootstraps").
///
/// Held downloads (``HeldDownloads``) wait for the last batch and then apply everything: the client decodes batches
/// while the server sends, but stores nothing until the end. A stream stores each batch while the next one is on its
/// way, so the work overlaps the transfer, and holds no batch in memory or in the file. It is used only where its
/// open transaction keeps nobody waiting: a flexible-sync file that no Realm of this process has open (the first
/// download of `Realm(configuration:downloadBeforeOpen:)`, or a session syncing a closed file), with no local change
/// queued for upload. Readers see the bootstrap all at once, at the commit; a lost connection rolls it back.
///
/// Only touched inside `SyncDatabase.perform` (the sync worker's queue), one call at a time.
final class BootstrapStream: @unchecked Sendable {
    /// The objects of the tables that held objects before the bootstrap (what else they hold goes at the end).
    var sweep: BootstrapSweep?
    /// New rows of the tables that were empty, across batches.
    var newRows = SyncNewRows(capacity: 1 << 12)
    var report = RealmInstance.SyncDownloadReport()
    /// Instructions applied so far, for the log.
    var instructions = 0

    init(sweep: BootstrapSweep) {
        self.sweep = sweep
    }
}

extension RealmInstance {
    /// The bootstrap stream whose write transaction is open on this instance (the session's own), if any; kept by
    /// the instance's upload recorder.
    var bootstrapStream: ObjectIdentifier? {
        get { syncRecorder?.bootstrapStream }
        set { syncRecorder?.bootstrapStream = newValue }
    }

    /// Opens the stream's write transaction, or returns nil (having written nothing) when the file has local changes
    /// queued for upload: those need the held path, which applies the bootstrap underneath them.
    ///
    /// - Parameter giveWay: runs (on the waiting writer's thread) when another writer of this process has to wait
    ///   for the stream's transaction — a Realm the app opened meanwhile — with the stream's identity; it must roll
    ///   that stream back on this instance's queue (``syncCancelBootstrapStream(_:)``), so the writer waits for one
    ///   batch at most, and never for the network or the cooperative thread pool.
    func syncBeginBootstrapStream(giveWay: @escaping @Sendable (ObjectIdentifier) -> Void) throws -> BootstrapStream? {
        try beginWrite()
        do {
            guard try syncFile.queued(after: 0, limit: 1).isEmpty else {
                cancelWrite()
                return nil
            }
            syncRecorder?.isApplyingDownload = true
            let stream = BootstrapStream(sweep: BootstrapSweep(tables: syncTablesHoldingObjects()))
            let id = ObjectIdentifier(stream)
            bootstrapStream = id
            onWriteContention { giveWay(id) }
            return stream
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
    }

    /// Applies one batch of the stream. Throws ``BootstrapStreamInterrupted`` when the stream gave way to another
    /// writer meanwhile (its transaction was rolled back): the session asks for the bootstrap again, and holds it then,
    /// as the app now has the file open.
    func syncStreamBatch(_ stream: BootstrapStream, _ changesets: [DownloadChangeset]) throws {
        guard isInWriteTransaction, bootstrapStream == ObjectIdentifier(stream) else {
            throw BootstrapStreamInterrupted(reason: "a Realm of the file waits to write", givesWay: true)
        }
        let none = PendingLocalChanges([])
        for changeset in changesets {
            syncApply(changeset, pending: none, sweep: &stream.sweep, newRows: &stream.newRows, report: &stream.report)
            stream.instructions += changeset.instructions.count
        }
    }

    /// Applies the last batch, removes what the bootstrap does not hold, records the acknowledgement, the cursor and
    /// the set's state (`awaitingMark`), and commits.
    func syncFinishBootstrapStream(_ stream: BootstrapStream, last changesets: [DownloadChangeset],
                                   cursor: DownloadCursor, uploadAck: Int64, queryVersion: Int64) throws -> SyncDownloadReport {
        defer {
            syncRecorder?.isApplyingDownload = false
            bootstrapStream = nil
        }
        onWriteContention(nil)
        do {
            try syncStreamBatch(stream, changesets)
            if let sweep = stream.sweep {
                syncSweep(sweep, keeping: PendingLocalChanges([]), what: "query version \(queryVersion)", into: &stream.report)
            }
            let file = syncFile
            try file.acknowledge(through: uploadAck)
            try file.setCursor(cursor)
            try file.setAwaitingMark(queryVersion)
            try commitWrite()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        return stream.report
    }

    /// Rolls the stream back (the connection ended before its last batch, a message that needs a write came, or
    /// another writer waits): the stream `id`, or whichever is open when nil. Does nothing when it is not open (a
    /// late call for a stream that ended).
    func syncCancelBootstrapStream(_ id: ObjectIdentifier? = nil) {
        guard let open = bootstrapStream, id == nil || id == open else { return }
        bootstrapStream = nil
        onWriteContention(nil)
        syncRecorder?.isApplyingDownload = false
        if isInWriteTransaction { cancelWrite() }
    }
}

/// A bootstrap stream had to stop before its last batch — a message other than the next batch came, or a Realm of
/// the file waits to write: it is rolled back, and the session connects again at once to get the bootstrap again.
struct BootstrapStreamInterrupted: Error, CustomStringConvertible {
    let reason: String
    /// It gave way to a writer of the file: the session connects again at once (no backoff).
    var givesWay = false
    var description: String { "the bootstrap applied as it arrives stopped (\(reason)); it is rolled back and asked for again" }
}
