/// Watches the write transactions of one Realm instance, as GRDB's `TransactionObserver` watches a connection's: the
/// start of a transaction, each row change as it is made, the moment before the commit (still inside the
/// transaction, where a throw fails the commit), and the end, committed or rolled back.
///
/// The database stores rows and knows nothing of what else a commit means. The parts of the library that give commits
/// a meaning (the upload queue of a synced Realm, the write events of the event library) attach an observer to each
/// instance when its file opens (``RealmFileObserver``); a test may attach one too
/// (``RealmInstance/attach(_:first:)``). The hooks run on the instance's thread, queue or actor, in the order the
/// observers were attached.
///
/// The row hooks run inside every write of a row, so they must be cheap; an instance without observers pays one
/// `isEmpty` test per row. No hook has a default: an observer lists the ones it ignores, so a misspelt hook is a
/// compile error rather than a hook never called.
protocol CommitObserver: AnyObject {
    /// A write transaction began (`BEGIN IMMEDIATE` ran): what was kept for the previous one can go.
    func transactionDidBegin(in instance: RealmInstance)

    /// An existing row is about to change: before each column write (`row` still holds the old value), and before
    /// a deletion, ahead of its embedded objects and of the links to it.
    func rowWillChange(_ row: ManagedRow, in instance: RealmInstance)

    /// A row was inserted with these column values (in the table's column order) through the insert buffer: the path
    /// of objects whose properties are all plain scalars, and of downloaded objects. Rows inserted another way are
    /// only in the change set the commit hooks get.
    func rowDidInsert(_ table: TableInfo, rowid: Int64, values: [SQLiteValue])

    /// Column `column` of `row` was written; `row.values` holds the new value.
    func rowDidUpdate(_ row: ManagedRow, column: Int)

    /// A row is about to be deleted: its embedded objects and the links to it are gone, the row itself is not. With
    /// `deleteAll()`, every row of every table, before each table is emptied (and without ``rowWillChange(_:in:)``).
    /// An autoclosure: making the row's storage costs, and an observer that does not need it leaves it unmade.
    func rowWillDelete(_ row: @autoclosure () -> ManagedRow, in instance: RealmInstance)

    /// The transaction is about to commit with `changes`. The observer may still write in it (the upload recorder
    /// stores the transaction's upload in the same SQLite transaction) or throw: the transaction is then rolled
    /// back, the observers after this one are not called, and the commit throws the error.
    func transactionWillCommit(_ changes: ChangeSet, in instance: RealmInstance) throws

    /// The transaction committed: the write lock is released and the instance reads the new version; the commit's
    /// notifications are not delivered yet.
    func transactionDidCommit(in instance: RealmInstance)

    /// The transaction was rolled back: cancelled, failed by an invalid operation, or its commit failed (also when a
    /// ``transactionWillCommit(_:in:)`` threw).
    func transactionDidRollback(in instance: RealmInstance)
}
