import CSQLite
import Dispatch
import Foundation
import Synchronization

/// Runs the SQLite database's WAL checkpoints on a background queue instead of inside the commit that crossed
/// SQLite's auto-checkpoint threshold.
///
/// By default SQLite checkpoints from the committing connection once the WAL holds 1,000 pages: that commit then
/// copies the WAL into the database file and `fsync`s both before it returns — 30–60 ms on the machine the
/// benchmarks run on, during which every change waiting behind it (and every session waiting to hear of it) is
/// late. The checkpointer replaces that with SQLite's WAL hook on GRDB's connections (installing a hook turns the
/// connection's auto-checkpoint off): past the threshold, a *passive* checkpoint runs on a connection of its own,
/// which copies committed pages while the writer goes on appending. Durability is unchanged (WAL with
/// `synchronous=FULL`, set by ``SQLiteStorage/init(path:)``): a commit is in the WAL, synced to disk, when it
/// returns, whether or not it has been checkpointed.
///
/// If the WAL still grows to ``inlineLimit`` pages (checkpoints kept from finishing by long reads), the writer
/// checkpoints inline as SQLite would, so the file cannot grow without bound.
final class WALCheckpointer: Sendable {
    /// WAL pages after which a background checkpoint is started (SQLite's own auto-checkpoint default).
    static let threshold: Int32 = 1_000
    /// WAL pages after which the committing connection checkpoints inline.
    static let inlineLimit: Int32 = 16_000

    private let path: String
    private let queue = DispatchQueue(label: "outpost.sqlite.checkpoint", qos: .utility)
    private struct State {
        var scheduled = false
        var closed = false
        var checkpoints = 0
    }
    private let state = Mutex(State())

    init(path: String) {
        self.path = path
    }

    /// Background checkpoints run so far. For tests.
    var checkpointCount: Int { state.withLock { $0.checkpoints } }

    /// Installs the hook on one of GRDB's connections (from `Configuration.prepareDatabase`, so on every
    /// connection; only the writer ever commits). The hook's pointer is unretained: the pool's configuration holds
    /// that `prepareDatabase` closure, and with it the checkpointer, for as long as any of its connections is open.
    func install(on connection: OpaquePointer?) {
        sqlite3_wal_hook(connection, { context, connection, database, pages in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue()
            if pages >= WALCheckpointer.inlineLimit {
                sqlite3_wal_checkpoint_v2(connection, database, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            } else if pages >= WALCheckpointer.threshold {
                checkpointer.schedule()
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Starts one background checkpoint unless one is already waiting or running.
    private func schedule() {
        let start = state.withLock { state in
            guard !state.scheduled, !state.closed else { return false }
            state.scheduled = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            checkpoint()
            state.withLock { $0.scheduled = false; $0.checkpoints += 1 }
        }
    }

    /// One passive checkpoint on a connection opened for it: it copies what readers no longer need and never
    /// waits for the writer. A connection of its own per checkpoint (one every few megabytes of WAL) keeps no file
    /// open between them. Failures are left for the next one: the WAL still holds every commit.
    private func checkpoint() {
        guard !state.withLock({ $0.closed }) else { return }
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            // A new connection opens the WAL with its first statement; a checkpoint before that finds none.
            sqlite3_exec(connection, "PRAGMA schema_version", nil, nil, nil) == SQLITE_OK
        else { return }
        sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Stops scheduling and waits for a running checkpoint, before the storage closes the database.
    func close() {
        state.withLock { $0.closed = true }
        queue.sync {}
    }
}
