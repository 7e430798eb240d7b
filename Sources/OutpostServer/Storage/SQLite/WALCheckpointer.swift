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
/// A checkpoint past the threshold waits for a pause in the commits (``quietPeriod``) unless the WAL reaches
/// ``busyThreshold``: copying megabytes into the database file and syncing it competes for the disk with the
/// commits' own syncs, so during a burst of uploads it made every commit of the burst late (and, with clients on
/// the same machine, their commits too). The WAL grows up to 32 MB during a burst and is copied once it ends, as
/// PostgreSQL spreads its checkpoints.
///
/// If the WAL still grows to ``inlineLimit`` pages (checkpoints kept from finishing by long reads), the writer
/// checkpoints inline as SQLite would, so the file cannot grow without bound.
final class WALCheckpointer: Sendable {
    /// WAL pages after which a background checkpoint is wanted (SQLite's own auto-checkpoint default).
    static let threshold: Int32 = 1_000
    /// WAL pages after which the background checkpoint runs even while commits keep coming.
    static let busyThreshold: Int32 = 8_000
    /// How long the commits must pause before a wanted checkpoint runs.
    static let quietPeriod: DispatchTimeInterval = .milliseconds(100)
    /// WAL pages after which the committing connection checkpoints inline.
    static let inlineLimit: Int32 = 16_000

    private let path: String
    private let queue = DispatchQueue(label: "outpost.sqlite.checkpoint", qos: .utility)
    private struct State {
        var scheduled = false
        var closed = false
        var checkpoints = 0
        /// The WAL's size at the last commit, and when it was.
        var pages: Int32 = 0
        var lastCommit = DispatchTime.now()
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
                checkpointer.schedule(pages: pages)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Notes a commit that left `pages` in the WAL and starts one background checkpoint unless one is already
    /// waiting or running.
    private func schedule(pages: Int32) {
        let start = state.withLock { state in
            state.pages = pages
            state.lastCommit = .now()
            guard !state.scheduled, !state.closed else { return false }
            state.scheduled = true
            return true
        }
        guard start else { return }
        queue.asyncAfter(deadline: .now() + Self.quietPeriod) { [self] in runWhenQuiet() }
    }

    /// Checkpoints once the commits have paused for ``quietPeriod`` or the WAL holds ``busyThreshold`` pages;
    /// until then looks again when the pause could be over.
    private func runWhenQuiet() {
        let wait: DispatchTime? = state.withLock { state in
            state.closed ? nil : Self.nextLook(pages: state.pages, lastCommit: state.lastCommit, now: .now())
        }
        if let wait {
            queue.asyncAfter(deadline: wait) { [self] in runWhenQuiet() }
            return
        }
        checkpoint()
        state.withLock { $0.scheduled = false; $0.checkpoints += 1 }
    }

    /// When a wanted checkpoint should look again, or nil to run it now: at once when the WAL holds
    /// ``busyThreshold`` pages, else once the commits have paused for ``quietPeriod``.
    static func nextLook(pages: Int32, lastCommit: DispatchTime, now: DispatchTime) -> DispatchTime? {
        if pages >= busyThreshold { return nil }
        let quietFrom = lastCommit + quietPeriod
        return quietFrom > now ? quietFrom : nil
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
