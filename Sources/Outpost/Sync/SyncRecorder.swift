import Foundation
import OutpostCore

/// Turns each committed transaction of a synced Realm into upload instructions, stored in the upload queue in the
/// same SQLite transaction as the objects (so a commit and its upload are durable together). Downloads applied by
/// the sync session are not recorded.
///
/// The commit observer sync attaches to every instance of a synced file when it opens
/// (``SyncOpenSupport/prepare(_:fileExisted:)``), ahead of the other observers: its
/// ``transactionWillCommit(_:in:)`` can fail the commit (a write outside the subscriptions) and removes the asymmetric
/// objects, before the others capture the transaction.
final class SyncRecorder: CommitObserver {
    let isFlexible: Bool
    let rejectsWritesOutsideSubscriptions: Bool
    /// Set while the session applies a download.
    var isApplyingDownload = false
    /// Set while the commit removes the transaction's asymmetric objects: the row hooks ignore those changes, which
    /// are not uploaded (``RealmInstance/removeAsymmetricObjects(written:)``).
    private(set) var isSuspended = false
    /// The bootstrap stream whose write transaction is open on the instance (the session's own), if any
    /// (``RealmInstance/bootstrapStream``).
    var bootstrapStream: ObjectIdentifier?
    /// Primary keys of the top-level objects deleted in the current transaction, by class and rowid.
    private var deletedKeys: [String: [Int64: Value]] = [:]
    /// The client version of the transaction being committed (nil: nothing to upload).
    private(set) var lastRecordedClientVersion: Int64?
    /// The client version of the last transaction this instance committed with changes to upload.
    var lastCommittedClientVersion: Int64?

    init(isFlexible: Bool, rejectsWritesOutsideSubscriptions: Bool) {
        self.isFlexible = isFlexible
        self.rejectsWritesOutsideSubscriptions = rejectsWritesOutsideSubscriptions
    }

    /// The column values of the objects this transaction inserted, by table (see ``SyncInsertedRows``).
    private var inserted: [ObjectIdentifier: SyncInsertedRows] = [:]

    func transactionBegan() {
        deletedKeys.removeAll()
        inserted.removeAll()
        lastRecordedClientVersion = nil
    }

    /// Keeps a new object's column values as they were written, for a class whose creates are written from them
    /// (``TableInfo/syncCreateFormat``): the commit then need not read the rows back.
    func didInsert(_ table: TableInfo, rowid: Int64, values: [SQLiteValue]) {
        guard !isApplyingDownload, table.syncCreateFormat != nil else { return }
        inserted[ObjectIdentifier(table), default: SyncInsertedRows(first: rowid)].append(rowid, values)
    }

    /// A column of `table` was written after its rows were inserted: its kept values may be stale.
    func didWrite(_ table: TableInfo) {
        guard !inserted.isEmpty else { return }
        inserted[ObjectIdentifier(table)]?.invalidate()
    }

    /// The kept values of these inserted rows (sorted rowids), or nil when they are not all kept and current.
    func insertedValues(_ table: TableInfo, _ rowids: [Int64]) -> SyncInsertedRows.Slice? {
        inserted[ObjectIdentifier(table)]?.slice(rowids)
    }

    /// Notes the primary key of an object about to be deleted. Only the first deletion of a rowid in a transaction
    /// counts: SQLite gives a new object the rowid of the table's last row once that row is deleted, so a later
    /// deletion of the same rowid removes an object created in this transaction, which the upload never mentions
    /// (`delete X; add Y; delete Y` must erase X).
    func willDelete(_ row: ManagedRow, in realm: RealmInstance) {
        guard !isApplyingDownload, !row.table.schema.isEmbedded else { return }
        guard deletedKeys[row.table.className]?[row.rowid] == nil else { return }
        deletedKeys[row.table.className, default: [:]][row.rowid] = realm.syncPrimaryKey(row)
    }

    /// Records the transaction's upload; throws (and the commit fails) when a write breaks a subscription rule.
    func recordCommit(_ changes: ChangeSet, in realm: RealmInstance) throws {
        guard !isApplyingDownload, !changes.isEmpty else { return }
        if isFlexible { try SubscriptionWriteCheck(realm: realm, checkObjects: rejectsWritesOutsideSubscriptions).check(changes) }
        let instructions = realm.syncInstructions(for: changes, deletedKeys: deletedKeys)
        guard instructions.count > 0 else { return }
        do {
            lastRecordedClientVersion = try realm.syncFile.enqueue(instructions)
        } catch let error as Realm.Error {
            throw error
        } catch {
            throw Realm.Error(.fail, "The write transaction could not be queued for upload: \(error)")
        }
    }

    // MARK: CommitObserver

    func transactionDidBegin(in instance: RealmInstance) {
        transactionBegan()
    }

    func rowWillChange(_ row: ManagedRow, in instance: RealmInstance) {}

    func rowDidInsert(_ table: TableInfo, rowid: Int64, values: [SQLiteValue]) {
        guard !isSuspended else { return }
        didInsert(table, rowid: rowid, values: values)
    }

    func rowDidUpdate(_ row: ManagedRow, column: Int) {
        guard !isSuspended else { return }
        didWrite(row.table)
    }

    func rowWillDelete(_ row: @autoclosure () -> ManagedRow, in instance: RealmInstance) {
        guard !isSuspended else { return }
        willDelete(row(), in: instance)
    }

    /// Records the upload, then removes the transaction's asymmetric objects, which leave the device at the commit
    /// (their removal is not uploaded).
    func transactionWillCommit(_ changes: ChangeSet, in instance: RealmInstance) throws {
        try recordCommit(changes, in: instance)
        isSuspended = true
        defer { isSuspended = false }
        instance.removeAsymmetricObjects(written: changes)
    }

    /// A commit with changes to upload: the session is told, and the version is the instance's last committed one.
    func transactionDidCommit(in instance: RealmInstance) {
        guard let version = lastRecordedClientVersion else { return }
        lastCommittedClientVersion = version
        SyncSessionRegistry.shared.localChange(path: instance.path)
    }

    func transactionDidRollback(in instance: RealmInstance) {}
}

extension RealmInstance {
    /// The upload recorder of an instance of a synced file; nil for a local Realm.
    var syncRecorder: SyncRecorder? { observer(of: SyncRecorder.self) }
}

extension RealmInstance {
    /// The upload instructions of a transaction, written as the changeset's JSON array: erases, then creates
    /// (whole objects), then field sets. Changes inside embedded objects become a set of the owning object's whole
    /// top-level field. New objects of classes with only scalar properties are written straight from their rows
    /// (``TableInfo/syncCreateFormat``), 256 rows per read.
    func syncInstructions(for changes: ChangeSet, deletedKeys: [String: [Int64: Value]]) -> UploadInstructions {
        let classNames = changes.tables.keys.sorted()
        // Erases first, then the creates written straight after them, then the sets.
        var out = UploadInstructions()
        for className in classNames {
            guard let pks = deletedKeys[className] else { continue }
            for rowid in changes.tables[className]!.deletions.sorted() {
                if let pk = pks[rowid] { out.append(.erase(className: className, primaryKey: pk)) }
            }
        }
        var sets: [SyncInstruction] = []
        var ownerFields: [String: [Int64: Set<String>]] = [:]
        for className in classNames {
            let t = changes.tables[className]!
            guard let table = tablesByName[className] ?? table(named: className) else { continue }
            if table.schema.isEmbedded {
                var rowids = t.insertions
                for (_, r) in t.modifiedRows { rowids.formUnion(r) }
                for rowid in rowids {
                    if let (owner, ownerRowid, field) = syncTopLevelOwner(table, rowid: rowid) {
                        ownerFields[owner.className, default: [:]][ownerRowid, default: []].insert(field)
                    }
                }
                continue
            }
            let inserted = t.sortedInsertions
            if let format = table.syncCreateFormat, let kept = syncRecorder?.insertedValues(table, inserted) {
                for values in kept { out.append { format.writeCreate(values, to: &$0) } }
            } else if let format = table.syncCreateFormat {
                do {
                    try loadRows(table, inserted) { _, values in out.append { format.writeCreate(values, to: &$0) } }
                } catch {
                    fatalError("Outpost could not read '\(className)' rows for the upload: \(error)")
                }
            } else {
                for rowid in inserted {
                    guard let document = syncDocument(table, rowid: rowid) else { continue }
                    let pk = table.primaryKeyProperty.flatMap { document[table.schema.allProperties[$0].columnName] } ?? .null
                    out.append(.create(className: className, primaryKey: pk, fields: document))
                }
            }
            for property in t.modifiedRows.keys.sorted() {
                guard let i = table.propertyIndexByName[property] else { continue }
                for rowid in t.modifiedRows[property]!.sorted() where !t.isInserted(rowid) {
                    guard let values = loadRow(table, rowid) else { continue }
                    let row = self.row(table, rowid, values: values)
                    sets.append(.set(className: className, primaryKey: syncPrimaryKey(row),
                                     field: table.schema.allProperties[i].columnName,
                                     value: syncFieldValue(table, row: row, propertyIndex: i)))
                }
            }
        }
        for className in ownerFields.keys.sorted() {
            guard let table = tablesByName[className] ?? table(named: className) else { continue }
            // An owner created in this transaction is uploaded whole already.
            let inserted = changes.tables[className]
            for (rowid, fields) in ownerFields[className]! where !(inserted?.isInserted(rowid) ?? false) {
                guard let values = loadRow(table, rowid) else { continue }
                let row = self.row(table, rowid, values: values)
                for field in fields.sorted() {
                    guard let i = table.propertyIndexByName[field] else { continue }
                    let instruction = SyncInstruction.set(className: className, primaryKey: syncPrimaryKey(row),
                                                          field: table.schema.allProperties[i].columnName,
                                                          value: syncFieldValue(table, row: row, propertyIndex: i))
                    if !sets.contains(instruction) { sets.append(instruction) }
                }
            }
        }
        for set in sets { out.append(set) }
        return out
    }

    /// The top-level object (and its field) an embedded object belongs to.
    func syncTopLevelOwner(_ table: TableInfo, rowid: Int64) -> (TableInfo, Int64, String)? {
        for (ownerName, schema) in storedSchemas {
            for property in schema.allProperties where property.type == .object && property.objectClassName == table.className {
                guard let owner = self.table(named: ownerName) else { continue }
                let column = SQL.quote(property.columnName)
                let sql = property.collection == .none
                    ? "SELECT rowid FROM \(owner.sqlName) WHERE \(column) = ?"
                    : "SELECT rowid FROM \(owner.sqlName) WHERE EXISTS (SELECT 1 FROM json_each(\(owner.sqlName).\(column)) WHERE value = ?)"
                guard let rows = try? connection.cached(sql).rows([.integer(rowid)]), case .integer(let ownerRowid)? = rows.first?[0]
                else { continue }
                if owner.schema.isEmbedded { return syncTopLevelOwner(owner, rowid: ownerRowid) }
                return (owner, ownerRowid, property.name)
            }
        }
        return nil
    }
}

/// A transaction's upload instructions written as JSON, comma-separated, as they will stand in the changeset's
/// `instructions` array.
struct UploadInstructions {
    private(set) var count = 0
    private(set) var json: [UInt8] = []

    /// Appends one instruction that `write` writes.
    mutating func append(_ write: (inout [UInt8]) -> Void) {
        if count > 0 { json.append(UInt8(ascii: ",")) }
        write(&json)
        count += 1
    }

    mutating func append(_ instruction: SyncInstruction) {
        append { instruction.writeJSON(to: &$0) }
    }

    /// Writes the `[…]` array.
    func writeArray(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        out.append(contentsOf: json)
        out.append(UInt8(ascii: "]"))
    }
}
