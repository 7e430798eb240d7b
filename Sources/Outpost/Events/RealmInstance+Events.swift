import Foundation
import OutpostCore

/// Where a Realm instance feeds the event library, through its ``EventRecorder``: old values before a modification or
/// deletion, a write event at each commit, read events when objects are produced. Only while a scope is active.
extension RealmInstance {
    /// Whether reads and writes are being recorded right now (``EventRecorder/isRecording(in:)``).
    @inline(__always)
    var isRecordingEvents: Bool {
        guard let recorder = eventRecorder else { return false }
        return recorder.isRecording(in: self)
    }

    /// The object as an event captures it now. Reads made while capturing (by a ``CustomEventRepresentable``) are
    /// not recorded.
    func eventObject(_ table: TableInfo, rowid: Int64) -> EventObject? {
        if let format = table.eventRowFormat {
            return eventRowValues(table, rowid).map { .row(format, $0) }
        }
        let recorder = eventRecorder
        let wasCapturing = recorder?.reads.isCapturing ?? false
        recorder?.reads.isCapturing = true
        defer { recorder?.reads.isCapturing = wasCapturing }
        if let type = table.objectType, type is CustomEventRepresentable.Type,
            let object = object(table, rowid) as? CustomEventRepresentable
        {
            return .custom(className: table.className, text: object.customEventRepresentation())
        }
        return syncDocument(table, rowid: rowid).map { .document($0) }
    }

    /// Keeps a row's values from before the transaction, before its first modification or its deletion.
    func eventCaptureOldValue(_ row: ManagedRow, recorder: EventRecorder) {
        guard recorder.isRecording(in: self) else { return }
        let table = row.table
        let captured = recorder.oldValues.rows(of: table)
        if captured.byRowid[row.rowid] != nil { return }
        if changes.tables[table.className]?.isInserted(row.rowid) ?? false { return }
        if let format = table.eventRowFormat, row.loadedVersion == snapshotVersion, !row.isDeleted,
            row.epoch == invalidationEpoch
        {
            // The row being changed holds this version's values.
            captured.byRowid[row.rowid] = (.row(format, row.values), row)
            return
        }
        if pendingInserts.table != nil { flushPendingInserts() }
        if let object = eventObject(table, rowid: row.rowid) {
            captured.byRowid[row.rowid] = (object, row)
        }
    }

    /// The write event of the transaction being committed (nil when nothing is recorded), built before the commit.
    func eventWriteChanges(_ committed: ChangeSet, recorder: EventRecorder) -> [String: EventWriteChanges]? {
        guard recorder.isRecording(in: self), !committed.isEmpty else { return nil }
        var classes: [String: EventWriteChanges] = [:]
        for className in committed.tables.keys.sorted() {
            guard let table = tablesByName[className] ?? table(named: className) else { continue }
            let t = committed.tables[className]!
            let old = recorder.oldValues.captured(table)?.byRowid ?? [:]
            var entry = EventWriteChanges()
            if !table.schema.isEmbedded {
                for rowid in t.insertions.sorted() {
                    if let object = eventObject(table, rowid: rowid) { entry.insertions.append(object) }
                }
                for rowid in t.deletions.sorted() {
                    if let object = old[rowid]?.object { entry.deletions.append(object) }
                }
            }
            var modified = Set<Int64>()
            if t.modifiedRows.count == 1 {
                modified = t.modifiedRows.first!.value
            } else {
                for rowids in t.modifiedRows.values { modified.formUnion(rowids) }
            }
            let format = table.eventRowFormat
            for rowid in modified.sorted() where !t.isInserted(rowid) && !t.deletions.contains(rowid) {
                guard let (before, row) = old[rowid] else { continue }
                if let format, row.loadedVersion == snapshotVersion, !row.isDeleted, row.epoch == invalidationEpoch {
                    // The changed row's storage holds the values being committed.
                    entry.modifications.append((before, .row(format, row.values)))
                } else if let after = eventObject(table, rowid: rowid) {
                    entry.modifications.append((before, after))
                }
            }
            if !entry.isEmpty { classes[className] = entry }
        }
        return classes.isEmpty ? nil : classes
    }

    /// Records a read of objects of one class (a query's matches, or one object) in every active scope. Returns
    /// what was captured (nil when nothing was recorded).
    @discardableResult
    func eventRecordRead(_ table: TableInfo, rowids: [Int64], isQuery: Bool) -> EventCapturedRows? {
        guard let recorder = eventRecorder, recorder.isRecording(in: self), !table.schema.isEmbedded, !rowids.isEmpty
        else { return nil }
        let context = recorder.context
        let timestamp = Date()
        var objects: [Int64: EventObject] = [:]
        let inserted = isInWriteTransaction ? changes.tables[table.className] : nil
        if rowids.count > 1, let format = table.eventRowFormat {
            // A query's matches: the rows not loaded at this version are read a page at a time.
            var wanted = rowids
            if let inserted { wanted.removeAll { inserted.isInserted($0) } }
            objects = eventRowObjects(table, format, wanted)
        } else {
            for rowid in rowids where objects[rowid] == nil {
                // Objects created in the open transaction did not exist at the version read.
                if inserted?.isInserted(rowid) ?? false { continue }
                if let object = eventObject(table, rowid: rowid) { objects[rowid] = object }
            }
        }
        context.record(RecordedEvent(timestamp: timestamp, kind: .read(EventRead(
            className: table.className, version: historyVersion, objects: objects, order: rowids, isQuery: isQuery))))
        return EventCapturedRows(objects: objects, version: snapshotVersion, writeCounter: writeCounter,
                                 epoch: invalidationEpoch)
    }

    /// Objects for a page of rowids made from the rows a read event captured, or nil when those no longer hold
    /// this version's values (the instance moved on, or wrote) or do not cover the page.
    func objects(_ table: TableInfo, rowids: ArraySlice<Int64>, captured: EventCapturedRows) -> [ObjectBase]? {
        synchronized {
            guard captured.version == snapshotVersion, captured.writeCounter == writeCounter,
                captured.epoch == invalidationEpoch
            else { return nil }
            var values: [[SQLiteValue]] = []
            values.reserveCapacity(rowids.count)
            for rowid in rowids {
                guard case .row(_, let row)? = captured.objects[rowid] else { return nil }
                values.append(row)
            }
            var objects: [ObjectBase] = []
            objects.reserveCapacity(rowids.count)
            for (i, rowid) in rowids.enumerated() { objects.append(object(table, rowid, values: values[i])) }
            return objects
        }
    }

    // MARK: Column values

    /// A row's column values as `syncDocument` sees them: those of its storage when loaded at this version,
    /// otherwise read from the database (nil when the row does not exist).
    func eventRowValues(_ table: TableInfo, _ rowid: Int64) -> [SQLiteValue]? {
        if let values = synchronized({ currentRowValues(table, rowid) }) { return values }
        return loadRow(table, rowid)
    }

    /// Several rows as events capture them (rows that do not exist are left out), the rows not loaded at this
    /// version read 256 per statement.
    func eventRowObjects(_ table: TableInfo, _ format: EventRowWriter, _ rowids: [Int64]) -> [Int64: EventObject] {
        synchronized {
            var out: [Int64: EventObject] = [:]
            out.reserveCapacity(rowids.count)
            var missing: [Int64] = []
            for rowid in rowids where out[rowid] == nil {
                if let values = currentRowValues(table, rowid) {
                    out[rowid] = .row(format, values)
                } else {
                    missing.append(rowid)
                }
            }
            guard !missing.isEmpty else { return out }
            do {
                try loadRows(table, Array(Set(missing)).sorted()) { rowid, values in out[rowid] = .row(format, values) }
            } catch {
                fatalError("Outpost could not read '\(table.className)' rows: \(error)")
            }
            return out
        }
    }

    /// The values of the row's storage when they belong to this version (call inside `synchronized`).
    private func currentRowValues(_ table: TableInfo, _ rowid: Int64) -> [SQLiteValue]? {
        table.rows.settle()
        guard let row = table.rows[rowid], row.loadedVersion == snapshotVersion, !row.isDeleted,
            row.epoch == invalidationEpoch
        else { return nil }
        return row.values
    }
}
