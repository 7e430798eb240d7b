import Synchronization

/// Decides when a storage refreshes PostgreSQL's planner statistics of its tables while they grow fast.
///
/// Autovacuum analyzes a table only after 10 % of it changed and at most once a minute per database, so a table
/// that grows from empty by thousands of rows a second (a new app's first uploads) keeps the statistics of an
/// empty table for a while. With them the planner reads the document lookup `pk_key = ANY($keys)` as a filter over
/// the whole collection instead of one index probe per key — 20 ms instead of 0.2 ms per lookup at 100,000
/// documents. The storage therefore runs `ANALYZE` itself each time the number of rows it has written doubles
/// (from 1,000), in the background; a steady-state server leaves the work to autovacuum again.
final class PostgresStatistics: Sendable {
    private struct State {
        var written = 0
        var next = 1_000
        var running = false
    }

    private let state = Mutex(State())

    /// Counts rows written by a committed transaction; true when the caller should start a refresh now.
    func noteWritten(rows: Int) -> Bool {
        state.withLock { state in
            state.written += rows
            guard !state.running, state.written >= state.next else { return false }
            state.running = true
            state.next = state.written * 2
            return true
        }
    }

    /// Called when a refresh ended (or failed).
    func refreshEnded() {
        state.withLock { $0.running = false }
    }
}
