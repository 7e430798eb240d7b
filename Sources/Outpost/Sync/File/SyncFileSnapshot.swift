import Foundation
import OutpostCore

/// What the session reads from the file when it connects (and with each read of the upload queue).
struct SyncFileSnapshot: Sendable {
    var fileIdent: Int64?
    var salt: Int64?
    var cursor: DownloadCursor
    var uploadAck: Int64
    var lastClientVersion: Int64
    /// The newest complete subscription set (the one the file holds data for).
    var activeSubscriptions: SubscriptionQuery?
    /// Subscription sets not complete yet, oldest first.
    var pendingSubscriptions: [SubscriptionQuery]
    var subscriptionStates: [Int64: SubscriptionSetState]
    /// A client reset is under way (``RealmInstance/syncBeginClientReset(_:)``): this connection resumes it.
    var isClientResetUnderWay: Bool
}

extension SyncFile {
    func snapshot() throws -> SyncFileSnapshot {
        var active: SubscriptionQuery?
        var pending: [SubscriptionQuery] = []
        var states: [Int64: SubscriptionSetState] = [:]
        for row in try connection.cached(
            "SELECT version, state, error, subscriptions FROM __outpost_sync_subscriptions ORDER BY version"
        ).rows() {
            guard case .integer(let v) = row[0], let state = Self.subscriptionSetState(row[1], error: row[2]),
                case .text(let text) = row[3]
            else { continue }
            states[v] = state
            // Only the sets the session sends are decoded (this runs on every upload pump).
            switch state {
            case .complete, .pending, .bootstrapping, .awaitingMark:
                let query = SubscriptionQuery(version: v, queries: SubscriptionRecord.protocolQueries(SubscriptionRecord.decode(text)))
                if state == .complete { active = query } else { pending.append(query) }
            case .error, .superseded: break
            }
        }
        pending.removeAll { $0.version <= (active?.version ?? 0) }
        return SyncFileSnapshot(
            fileIdent: try fileIdent(), salt: try salt(), cursor: try cursor(), uploadAck: try uploadAck(),
            lastClientVersion: try lastClientVersion(), activeSubscriptions: active,
            pendingSubscriptions: pending, subscriptionStates: states,
            isClientResetUnderWay: try isClientResetUnderWay())
    }
}
