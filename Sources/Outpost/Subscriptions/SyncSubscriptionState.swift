import Foundation

/// The state of a subscription set, as Realm reports it.
public enum SyncSubscriptionState: Equatable, Sendable {
    /// Committed, waiting for the server (includes bootstrapping and waiting for the "caught up" mark).
    case pending
    /// The server sent every matching object.
    case complete
    /// The server refused the set (for example a field that is not queryable); the error has its message.
    case error(Error)
    /// A newer set completed.
    case superseded

    public static func == (lhs: SyncSubscriptionState, rhs: SyncSubscriptionState) -> Bool {
        switch (lhs, rhs) {
        case (.pending, .pending), (.complete, .complete), (.superseded, .superseded): true
        case (.error(let a), .error(let b)): a.localizedDescription == b.localizedDescription
        default: false
        }
    }

    init(_ state: SubscriptionSetState) {
        switch state {
        case .pending, .bootstrapping, .awaitingMark: self = .pending
        case .complete: self = .complete
        case .superseded: self = .superseded
        case .error(let message):
            self = .error(SyncError(.invalidFlexibleSyncSubscriptions, message))
        }
    }
}
