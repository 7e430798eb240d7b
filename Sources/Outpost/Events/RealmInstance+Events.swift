import Foundation
import OutpostCore

/// Where a Realm instance feeds the event library: old values before a modification or deletion, a write event at
/// each commit, read events when objects are produced. Only while a scope is active.
extension RealmInstance {
    /// Whether reads and writes are being recorded right now.
    @inline(__always)
    var isRecordingEvents: Bool {
        guard let context = eventContext else { return false }
        return context.hasActiveScopes && !eventReads.isCapturing && !(syncRecorder?.isApplyingDownload ?? false)
    }

    /// The object as an event captures it now. Reads made while capturing (by a ``CustomEventRepresentable``) are
    /// not recorded.
    func eventObject(_ table: TableInfo, rowid: Int64) -> EventObject? {
        let wasCapturing = eventReads.isCapturing
        eventReads.isCapturing = true
        defer { eventReads.isCapturing = wasCapturing }
        if let type = table.objectType, type is CustomEventRepresentable.Type,
            let object = object(table, rowid) as? CustomEventRepresentable
        {
            return .custom(className: table.className, text: object.customEventRepresentation())
        }
        return syncDocument(table, rowid: rowid).map { .document($0) }
    }

    /// Keeps a row's values from before the transaction, before its first modification or its deletion.
    func eventCaptureOldValue(_ row: ManagedRow) {
        guard isRecordingEvents else { return }
        let table = row.table
        if changes.tables[table.className]?.isInserted(row.rowid) ?? false { return }
        if eventOldValues[table.className]?[row.rowid] != nil { return }
        if pendingInserts.table != nil { flushPendingInserts() }
        if let object = eventObject(table, rowid: row.rowid) {
            eventOldValues[table.className, default: [:]][row.rowid] = object
        }
    }

    /// The write event of the transaction being committed (nil when nothing is recorded), built before the commit.
    func eventWriteChanges(_ committed: ChangeSet) -> [String: EventWriteChanges]? {
        guard isRecordingEvents, !committed.isEmpty else { return nil }
        var classes: [String: EventWriteChanges] = [:]
        for className in committed.tables.keys.sorted() {
            guard let table = tablesByName[className] ?? table(named: className) else { continue }
            let t = committed.tables[className]!
            let old = eventOldValues[className] ?? [:]
            var entry = EventWriteChanges()
            if !table.schema.isEmbedded {
                for rowid in t.insertions.sorted() {
                    if let object = eventObject(table, rowid: rowid) { entry.insertions.append(object) }
                }
                for rowid in t.deletions.sorted() {
                    if let object = old[rowid] { entry.deletions.append(object) }
                }
            }
            var modified = Set<Int64>()
            for rowids in t.modifiedRows.values { modified.formUnion(rowids) }
            for rowid in modified.sorted() where !t.isInserted(rowid) && !t.deletions.contains(rowid) {
                guard let before = old[rowid], let after = eventObject(table, rowid: rowid) else { continue }
                entry.modifications.append((before, after))
            }
            if !entry.isEmpty { classes[className] = entry }
        }
        return classes.isEmpty ? nil : classes
    }

    /// Records a read of objects of one class (a query's matches, or one object) in every active scope.
    func eventRecordRead(_ table: TableInfo, rowids: [Int64], isQuery: Bool) {
        guard isRecordingEvents, !table.schema.isEmbedded, !rowids.isEmpty, let context = eventContext else { return }
        let timestamp = Date()
        var objects: [Int64: EventObject] = [:]
        let inserted = isInWriteTransaction ? changes.tables[table.className] : nil
        for rowid in rowids where objects[rowid] == nil {
            // Objects created in the open transaction did not exist at the version read.
            if inserted?.isInserted(rowid) ?? false { continue }
            if let object = eventObject(table, rowid: rowid) { objects[rowid] = object }
        }
        context.record(RecordedEvent(timestamp: timestamp, kind: .read(EventRead(
            className: table.className, version: historyVersion, objects: objects, order: rowids, isQuery: isQuery))))
    }
}
