import Foundation
import Synchronization
import OutpostCore

/// One open Realm: a SQLite connection confined to a thread, queue or actor, pinned to a read
/// version between refreshes, with its table layouts and live rows. `Realm` is a thin struct over it.
final class RealmInstance {
    let configuration: Realm.Configuration
    let path: String
    let connection: SQLiteConnection
    let confinement: Confinement
    let isFrozen: Bool
    let isReadOnly: Bool

    /// Bumped whenever cached row values may be stale (refresh saw changes, rollback).
    var snapshotVersion = 0
    /// Bumped on every local write, so `Results` re-evaluate inside a write transaction.
    var writeCounter = 0
    /// The last history version this instance has read.
    var historyVersion: Int64 = 0
    var isInWriteTransaction = false {
        didSet {
            // A thread's Realm stays open while it writes, even when nothing else holds it (ThreadWritePin).
            guard oldValue != isInWriteTransaction, case .thread = confinement, !configuration.isInternalWorker else {
                return
            }
            if isInWriteTransaction { ThreadWritePin.pin(self) } else { ThreadWritePin.unpin(self) }
        }
    }
    /// The queue of `beginAsyncWrite` blocks and commit completions (Realm+AsyncWrite.swift).
    lazy var asyncWrites = AsyncWrites()
    /// This process's queue of writers to the file (`WriteLock`), held from `beginWrite` to the commit or rollback.
    private lazy var writeLock = WriteLock.forFile(path)
    private var holdsWriteLock = false
    /// The connection commits with `synchronous=NORMAL` (``beginWrite(durable:)``): from the start of a relaxed
    /// transaction until it ends, when `FULL` is set again (``restoreDurability()``).
    private var commitsRelaxed = false
    var isInvalidated = false
    var autorefresh = true
    /// The open that made the instance has not returned yet: it waits before returning (an asynchronous open of a
    /// synced file waiting for the server's data). Nobody can use the instance yet, so another part of the library
    /// may hold a write transaction of the file open meanwhile (``RealmRegistry/hasUsableAppInstance(path:)``).
    let isStillOpening = Atomic<Bool>(false)
    /// Changes of the current write transaction.
    var changes = ChangeSet()
    /// The first invalid operation of the current write transaction; the commit throws it.
    var pendingError: Realm.Error?
    /// Embedded objects created from nested values in `create(_:value:)` that wait for their parent's link.
    var parentlessEmbeddedRows: Set<ObjectIdentifier> = []
    /// While a property is rewritten (a list's remove, move or swap): the embedded rows it already holds, each of
    /// which may take its place again once.
    var embeddedKeptInPlace: (table: String, rowids: Set<Int64>)?
    /// Set while a migration block runs: primary keys may be changed (they are checked afterwards).
    var isMigrating = false
    /// Rows added and not written to SQLite yet (RealmInstance+Inserts.swift).
    var pendingInserts = PendingInserts()
    /// Installed as the connection's `willRunStatement` while `pendingInserts` has rows.
    lazy var flushPendingInsertsHook: () -> Void = { [unowned self] in self.flushPendingInserts() }

    /// The observers of this instance's write transactions (CommitObserver.swift), in the order they are told
    /// (``attach(_:first:)``): what the parts of the library that give a commit a meaning attached when the file
    /// opened (``RealmFileObserver``).
    var commitObservers: [any CommitObserver] = []
    /// The observer told of the objects read through this instance, if any (ReadObserver.swift): a plain optional,
    /// since every read path tests it.
    var readObserver: (any ReadObserver)?
    /// The working copy of the subscriptions while `subscriptions.update {}` runs (shared by every
    /// `realm.subscriptions` value of this instance).
    var subscriptionsBeingUpdated: [SubscriptionRecord]?

    var tablesByName: [String: TableInfo] = [:]
    var tablesByType: [ObjectIdentifier: TableInfo] = [:]
    /// Stored schema per class (what the file holds).
    var storedSchemas: [String: ObjectSchema] = [:]
    /// The Swift type name stored with each class, used to find classes the process has not used yet.
    var storedSwiftTypes: [String: String] = [:]
    /// Classes whose tables were added inside the open write transaction: a cancelled write rolls their tables
    /// back, and ``restoreTablesAddedInWrite()`` adds them again.
    var tablesAddedInWrite: [ObjectBase.Type] = []
    var schemaVersion: UInt64 = 0

    let notifier = Notifier()
    var readTransactionOpen = false
    /// Bumped by `Realm.invalidate()`: rows (and so objects and collections) read before are detached.
    var invalidationEpoch = 0
    /// Bumped each time the instance starts a read or write transaction (sees a new version).
    var readGeneration = 0
    /// The frozen copy made at `frozenGeneration`, reused while the instance stays at that version.
    weak var frozenCopyCache: RealmInstance?
    var frozenGeneration = -1
    /// Frozen instances only: serializes every access to the connection and the row caches, since
    /// frozen objects may be used from any thread. Nil (no locking) for live instances.
    let frozenLock: NSRecursiveLock?

    init(configuration: Realm.Configuration, path: String, connection: SQLiteConnection, confinement: Confinement,
         isFrozen: Bool) {
        self.configuration = configuration
        self.path = path
        self.connection = connection
        self.confinement = confinement
        self.isFrozen = isFrozen
        self.isReadOnly = configuration.readOnly || isFrozen
        self.frozenLock = isFrozen ? NSRecursiveLock() : nil
    }

    deinit {
        connection.willRunStatement = nil
        if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
        releaseWriteLock()
        RealmRegistry.shared.unregister(self)
        // The parts of the library that watch the file hear that one of the app's instances closed (a synced file's
        // session stops once the app's last one is closed and its changes are uploaded).
        if !configuration.isInternalWorker, !isFrozen {
            for observer in RealmFileObservers.all {
                observer.appInstanceDidClose(path: path, configuration: configuration)
            }
        }
        // An in-memory Realm's data lives while one of its instances is open.
        if configuration.inMemoryIdentifier != nil && !isFrozen && RealmRegistry.shared.openCount(path: path) == 0 {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }

    // MARK: Confinement

    @inline(__always)
    func verifyAccess() {
        confinement.verify()
    }

    // MARK: Read transactions

    /// Starts a read transaction pinned at the latest version.
    func beginRead() throws {
        guard !readTransactionOpen else { return }
        try connection.execute("BEGIN DEFERRED")
        _ = try connection.scalar("SELECT count(*) FROM __outpost_meta")
        readTransactionOpen = true
        readGeneration &+= 1
    }

    func endRead() {
        if readTransactionOpen {
            try? connection.execute("COMMIT")
            readTransactionOpen = false
        }
    }

    /// Advances to the latest version. Returns the changes made since the previous version.
    @discardableResult
    func advance() throws -> ChangeSet {
        precondition(!isInWriteTransaction, "Cannot refresh a Realm inside a write transaction.")
        if isFrozen { return ChangeSet() }
        endRead()
        try beginRead()
        return try consumeHistory()
    }

    /// Reads the history written since `historyVersion`.
    func consumeHistory() throws -> ChangeSet {
        let latest = try connection.scalar("SELECT coalesce(max(version), 0) FROM __outpost_history")
        guard case .integer(let newest) = latest, newest > historyVersion else { return ChangeSet() }
        let rows = try connection.cached("SELECT version, changes FROM __outpost_history WHERE version > ? ORDER BY version")
            .rows([.integer(historyVersion)])
        var merged = ChangeSet()
        var expected = historyVersion + 1
        for row in rows {
            guard case .integer(let v) = row[0], case .text(let text) = row[1] else { continue }
            if v != expected { merged.isUnknown = true }
            expected = v + 1
            if let c = ChangeSet(encoded: text) { merged.merge(c) } else { merged.isUnknown = true }
        }
        if rows.isEmpty || expected - 1 != newest { merged.isUnknown = true }
        historyVersion = newest
        if !merged.isEmpty { invalidateRowCaches() }
        return merged
    }

    func invalidateRowCaches() {
        snapshotVersion &+= 1
        writeCounter &+= 1
    }

    // MARK: Write transactions

    /// Begins a write transaction.
    ///
    /// - Parameter durable: false for a transaction that may be lost in a power failure or a crash of the machine
    ///   (not of the process): its commit does not wait for the disk (`synchronous=NORMAL` in WAL mode; it reaches
    ///   the disk with the next durable commit, in order). Only for bookkeeping that is redone when lost, such as
    ///   the sync session's record of an upload acknowledgement.
    func beginWrite(durable: Bool = true) throws {
        verifyAccess()
        precondition(!isFrozen, "Can't perform transactions on a frozen Realm")
        if isReadOnly {
            throw Realm.Error(.fail, "Can't perform transactions on read-only Realms.")
        }
        precondition(!isInWriteTransaction, "The Realm is already in a write transaction")
        endRead()
        acquireWriteLock()
        do {
            if durable {
                try restoreDurability()
            } else if !commitsRelaxed {
                try connection.execute("PRAGMA synchronous=NORMAL")
                commitsRelaxed = true
            }
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            releaseWriteLock()
            try? beginRead()
            throw Realm.Error(.fail, "Unable to begin a write transaction: \(error)")
        }
        readTransactionOpen = false
        readGeneration &+= 1
        isInWriteTransaction = true
        Logger.database(.trace, "\(logID) Start write transaction")
        changes = ChangeSet()
        pendingError = nil
        parentlessEmbeddedRows.removeAll()
        for observer in commitObservers { observer.transactionDidBegin(in: self) }
        let external = try consumeHistory()
        if !external.isEmpty {
            notifier.deliver(external, realm: self, synchronously: true)
            notifier.notifyRealmObservers(.didChange)
        }
    }

    func commitWrite() throws {
        verifyAccess()
        precondition(isInWriteTransaction, "Can't commit a non-existing write transaction")
        flushPendingInserts()
        if let error = pendingError {
            cancelWrite()
            throw error
        }
        // The transaction's changes as its observers get them and the history records them: what an observer writes
        // while the transaction commits is not part of them.
        let committed = changes
        for observer in commitObservers {
            do {
                try observer.transactionWillCommit(committed, in: self)
            } catch {
                cancelWrite()
                throw error
            }
        }
        do {
            if !committed.isEmpty {
                let version = historyVersion + 1
                try connection.cached("INSERT INTO __outpost_history (version, changes) VALUES (?, ?)")
                    .run([.integer(version), .text(committed.encoded)])
                if version % 256 == 0 {
                    try connection.cached("DELETE FROM __outpost_history WHERE version <= ?").run([.integer(version - 4096)])
                }
                historyVersion = version
            }
            try connection.execute("COMMIT")
        } catch {
            cancelWrite()
            throw Realm.Error(.fail, "The write transaction could not be committed: \(error)")
        }
        try? restoreDurability()  // checked again before every durable write
        releaseWriteLock()
        isInWriteTransaction = false
        tablesAddedInWrite.removeAll()
        changes = ChangeSet()
        try beginRead()
        for observer in commitObservers { observer.transactionDidCommit(in: self) }
        if !committed.isEmpty {
            RealmRegistry.shared.didCommit(from: self)
            notifier.deliver(committed, realm: self, synchronously: false, isLocal: true)
        }
        notifier.notifyRealmObservers(.didChange)
    }

    /// Sets the connection back to `synchronous=FULL` after a relaxed transaction (outside a transaction: SQLite
    /// refuses to change it inside one). Every path that writes on the connection passes here first, so that no
    /// other write commits relaxed.
    func restoreDurability() throws {
        guard commitsRelaxed else { return }
        try connection.execute("PRAGMA synchronous=FULL")
        commitsRelaxed = false
    }

    /// Waits for this process's earlier writers of the file, then holds its write lock (`WriteLock`).
    func acquireWriteLock() {
        writeLock.lock()
        holdsWriteLock = true
    }

    /// This process's write lock of the file (`asyncWrite` waits for it to be free).
    var fileWriteLock: WriteLock { writeLock }

    /// While this instance holds the write lock: `handler` runs once when another writer of the process has to
    /// wait for it (nil clears it). Only for a holder that gives way (it rolls its transaction back).
    func onWriteContention(_ handler: (@Sendable () -> Void)?) {
        writeLock.setContentionHandler(handler)
    }

    /// Lets the next writer of this file in, if this instance holds the process's write lock.
    func releaseWriteLock() {
        guard holdsWriteLock else { return }
        holdsWriteLock = false
        writeLock.unlock()
    }

    func cancelWrite() {
        verifyAccess()
        precondition(isInWriteTransaction, "Can't cancel a non-existing write transaction")
        discardPendingInserts()
        try? connection.execute("ROLLBACK")
        try? restoreDurability()
        releaseWriteLock()
        isInWriteTransaction = false
        restoreTablesAddedInWrite()
        changes = ChangeSet()
        pendingError = nil
        for observer in commitObservers { observer.transactionDidRollback(in: self) }
        invalidateRowCaches()
        for table in tablesByName.values {
            for row in table.rows.values where row.isDeleted { row.isDeleted = false }
        }
        try? beginRead()
        if notifier.hasObservers { notifier.scheduleFlush(self) }
    }

    /// Records the first invalid operation of the current write; `commitWrite` will throw it.
    func fail(_ error: Realm.Error) {
        // An insert still buffered came first: its error (a duplicate primary key) must win.
        if pendingError == nil && pendingInserts.table != nil { flushPendingInserts() }
        if pendingError == nil { pendingError = error }
    }

    /// Traps unless a write transaction is open (Realm's wording).
    @inline(__always)
    func requireWrite() {
        if !isInWriteTransaction {
            fatalError(
                "Attempting to modify object outside of a write transaction - call beginWrite on an RLMRealm instance first.")
        }
    }
}
