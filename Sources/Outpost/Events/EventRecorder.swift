import Foundation

/// The event library's observer of one Realm instance, attached when its file opens while the file has an event
/// context (``EventFileObserver``). While a scope is active it keeps each row a transaction changes as it was before,
/// turns each commit into a write event, and records the objects the app reads (as the instance's read observer).
final class EventRecorder: CommitObserver, ReadObserver {
    /// The file's event recording state, shared by its instances in the process.
    var context: EventContext
    /// While a scope is active: each modified or deleted row as it was before the transaction, by table and rowid,
    /// with the row's storage (whose values are the new ones at commit).
    var oldValues = EventOldValues()
    /// Read-event bookkeeping.
    var reads = EventReadState()
    /// The write event of the transaction being committed: made and handed to the context's worker (which writes
    /// its JSON beside the commit) before the commit, recorded in the active scopes once the transaction committed.
    private var pendingWrite: EventWritePayload?

    init(context: EventContext) {
        self.context = context
    }

    /// Whether the instance's reads and writes are being recorded right now: a scope is active, no object is being
    /// captured for an event, and the instance is not applying a download.
    @inline(__always)
    func isRecording(in instance: RealmInstance) -> Bool {
        context.hasActiveScopes && !reads.isCapturing && !(instance.syncRecorder?.isApplyingDownload ?? false)
    }

    // MARK: CommitObserver

    func transactionDidBegin(in instance: RealmInstance) {
        oldValues.removeAll()
        pendingWrite = nil
    }

    func rowWillChange(_ row: ManagedRow, in instance: RealmInstance) {
        instance.eventCaptureOldValue(row, recorder: self)
    }

    func rowDidInsert(_ table: TableInfo, rowid: Int64, values: [SQLiteValue]) {}

    func rowDidUpdate(_ row: ManagedRow, column: Int) {}

    func rowWillDelete(_ row: @autoclosure () -> ManagedRow, in instance: RealmInstance) {}

    func transactionWillCommit(_ changes: ChangeSet, in instance: RealmInstance) throws {
        let writeEvent = instance.eventWriteChanges(changes, recorder: self).map(EventWritePayload.init)
        if let writeEvent { context.prepare(writeEvent) }  // on the worker, beside the commit
        oldValues.removeAll()
        pendingWrite = writeEvent
    }

    func transactionDidCommit(in instance: RealmInstance) {
        guard let writeEvent = pendingWrite else { return }
        pendingWrite = nil
        context.record(RecordedEvent(timestamp: Date(), kind: .write(writeEvent)))
    }

    func transactionDidRollback(in instance: RealmInstance) {
        oldValues.removeAll()
        pendingWrite = nil
    }

    // MARK: ReadObserver

    func didReadObject(_ table: TableInfo, rowid: Int64, in instance: RealmInstance) {
        instance.eventRecordRead(table, rowids: [rowid], isQuery: false)
    }

    func didFollowLink(from row: ManagedRow, propertyIndex: Int, to value: _StoredValue) {
        let instance = row.realm
        guard isRecording(in: instance) else { return }
        instance.eventRecordLinkReads(parent: row, propertyIndex: propertyIndex, values: [value])
    }
}

extension RealmInstance {
    /// The instance's event recorder when its file has an event context: its read observer.
    var eventRecorder: EventRecorder? { readObserver as? EventRecorder }
}
