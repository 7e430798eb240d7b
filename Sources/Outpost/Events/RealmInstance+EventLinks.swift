import Foundation
import OutpostCore

/// Read events for following links (reference §2.1, §4.3): an object read through a to-one property, or as an
/// element of a list, set or map (also `AnyRealmValue`s holding objects).
extension RealmInstance {
    /// Records a read of each object among `values`, reached through property `propertyIndex` of `parent`, in every
    /// active scope. Embedded objects and non-objects are skipped.
    ///
    /// The first access to a property in a scope generation (a new scope, version or write starts one) also captures
    /// every object the property links to, so that a read of `parent` recorded earlier in the scope can show the
    /// whole property in full when the scope is serialized.
    func eventRecordLinkReads(parent: ManagedRow, propertyIndex: Int, values: [_StoredValue]) {
        guard let recorder = eventRecorder, recorder.isRecording(in: self) else { return }
        let context = recorder.context
        let targets = values.compactMap { value -> ManagedRow? in
            guard case .object(let object) = value, let row = object._row, !row.table.schema.isEmbedded else {
                return nil
            }
            return row
        }
        guard !targets.isEmpty else { return }
        let timestamp = Date()
        let version = historyVersion
        let property = EventLinkProperty(version: version, className: parent.table.className, rowid: parent.rowid,
                                         name: parent.table.schema.allProperties[propertyIndex].columnName)
        // An embedded parent is serialized inline in its owner, where its links are not tracked.
        let tracksParent = !parent.table.schema.isEmbedded
        var captured: [Value: EventLinkTarget]?
        let scopes = context.scopeGeneration
        if tracksParent
            && recorder.reads.needsCapture(property, scopes: scopes, version: version, writes: writeCounter)
        {
            captured = eventLinkTargets(parent, propertyIndex: propertyIndex)
        }
        var isFirst = true
        for row in targets {
            let table = row.table
            var objects: [Int64: EventObject] = [:]
            // Objects created in the open transaction did not exist at the version read: the read is dropped later.
            if !(isInWriteTransaction && (changes.tables[table.className]?.isInserted(row.rowid) ?? false)) {
                if let captured, !row.isInvalidated, let target = captured[eventLinkKey(row)] {
                    objects[row.rowid] = target.object
                } else if let object = eventObject(table, rowid: row.rowid) {
                    objects[row.rowid] = object
                }
            }
            let link = tracksParent ? EventLinkAccess(property: property, targets: isFirst ? captured : nil) : nil
            isFirst = false
            context.record(RecordedEvent(timestamp: timestamp, kind: .read(EventRead(
                className: table.className, version: version, objects: objects, order: [row.rowid], isQuery: false,
                link: link))))
        }
    }

    /// Every object property `propertyIndex` of `parent` links to now (embedded objects and objects without a primary
    /// key left out), as captured for an event, by link value.
    private func eventLinkTargets(_ parent: ManagedRow, propertyIndex: Int) -> [Value: EventLinkTarget] {
        let values: [_StoredValue]
        switch parent.table.schema.allProperties[propertyIndex].collection {
        case .none: values = [parent.read(property: propertyIndex)]
        case .list, .set: values = parent.readCollection(property: propertyIndex)
        case .map: values = parent.readMap(property: propertyIndex).map(\.1)
        }
        var out: [Value: EventLinkTarget] = [:]
        for case .object(let object) in values {
            guard let row = object._row, !row.table.schema.isEmbedded, row.table.primaryKeyProperty != nil,
                !row.isInvalidated, let captured = eventObject(row.table, rowid: row.rowid)
            else { continue }
            out[eventLinkKey(row)] = EventLinkTarget(className: row.table.className, rowid: row.rowid, object: captured)
        }
        return out
    }

    /// How a captured document refers to the object: its class and primary key.
    private func eventLinkKey(_ row: ManagedRow) -> Value {
        .link(className: row.table.className, primaryKey: syncPrimaryKey(row))
    }
}
