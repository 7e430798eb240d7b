import Foundation
import OutpostCore

/// The subscription sets: rows of `__outpost_sync_subscriptions` (version, state, error, the subscriptions as JSON).
extension SyncFile {
    /// The newest set's version (0: none yet), as the connection's current read or write sees it.
    func latestSubscriptionVersion() throws -> Int64 {
        if case .integer(let v) = try connection.scalar("SELECT coalesce(max(version), 0) FROM __outpost_sync_subscriptions") {
            return v
        }
        return 0
    }

    /// The newest set's version and subscriptions; nil when there is none.
    func latestSubscriptionSet() throws -> (Int64, [SubscriptionRecord])? {
        let rows = try connection.cached(
            "SELECT version, subscriptions FROM __outpost_sync_subscriptions ORDER BY version DESC LIMIT 1").rows()
        guard let row = rows.first, case .integer(let v) = row[0], case .text(let text) = row[1] else { return nil }
        return (v, SubscriptionRecord.decode(text))
    }

    /// Stores a new set, pending (inside the caller's write transaction).
    func insertSubscriptionSet(_ version: Int64, _ records: [SubscriptionRecord]) throws {
        try connection.cached(
            "INSERT INTO __outpost_sync_subscriptions (version, state, error, subscriptions) VALUES (?, 'pending', NULL, ?)"
        ).run([.integer(version), .text(SubscriptionRecord.encode(records))])
    }

    /// A stored set's state; nil when the version is not stored (a completed newer set deleted it).
    func subscriptionState(_ version: Int64) throws -> SubscriptionSetState? {
        let rows = try connection.cached("SELECT state, error FROM __outpost_sync_subscriptions WHERE version = ?")
            .rows([.integer(version)])
        guard let row = rows.first else { return nil }
        return Self.subscriptionSetState(row[0], error: row[1])
    }

    /// Every stored set's state (read while another process syncs the file).
    func subscriptionStates() throws -> [Int64: SubscriptionSetState] {
        var states: [Int64: SubscriptionSetState] = [:]
        for row in try connection.cached("SELECT version, state, error FROM __outpost_sync_subscriptions").rows() {
            guard case .integer(let v) = row[0], let state = Self.subscriptionSetState(row[1], error: row[2])
            else { continue }
            states[v] = state
        }
        return states
    }

    /// Stores a set's state. A completed set supersedes the older ones, which are deleted (as the original does; a
    /// `SyncSubscriptionSet` of a deleted version reads `.superseded`), except refused ones, which keep their error.
    func setSubscriptionState(_ version: Int64, _ state: SubscriptionSetState) throws {
        var error: SQLiteValue = .null
        if case .error(let message) = state { error = .text(message) }
        try connection.cached("UPDATE __outpost_sync_subscriptions SET state = ?, error = ? WHERE version = ?")
            .run([.text(state.text), error, .integer(version)])
        if state == .complete {
            try connection.cached(
                "DELETE FROM __outpost_sync_subscriptions WHERE version < ? AND state != 'error'"
            ).run([.integer(version)])
        }
    }

    /// A bootstrapped set waits for the answer to its `mark` (in the transaction that applied its bootstrap).
    func setAwaitingMark(_ version: Int64) throws {
        try connection.cached("UPDATE __outpost_sync_subscriptions SET state = 'awaitingMark' WHERE version = ?")
            .run([.integer(version)])
    }

    /// A client reset: the newest complete set, and any set whose bootstrap was under way, are pending again, so
    /// that the server bootstraps them for the new file.
    func makeSubscriptionsPendingForReset() throws {
        try connection.execute("""
            UPDATE __outpost_sync_subscriptions SET state = 'pending'
            WHERE state IN ('bootstrapping', 'awaitingMark')
               OR version = (SELECT max(version) FROM __outpost_sync_subscriptions WHERE state = 'complete')
            """)
    }

    /// A row's state from its `state` and `error` columns; nil when `state` is not text.
    static func subscriptionSetState(_ state: SQLiteValue, error: SQLiteValue) -> SubscriptionSetState? {
        guard case .text(let text) = state else { return nil }
        var message: String?
        if case .text(let e) = error { message = e }
        return SubscriptionSetState(text: text, error: message)
    }
}
