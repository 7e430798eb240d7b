import Synchronization

/// Fans change notifications out to every stream returned by `DocumentStorage.changeNotifications()`.
///
/// Each subscriber gets its own `AsyncStream` with an unbounded buffer; a stream that is dropped or cancelled
/// unsubscribes itself. `finish()` ends every stream (on `close()`).
package final class ChangeBroadcaster: Sendable {
    private struct State {
        var nextId = 0
        var subscribers: [Int: AsyncStream<ChangeNotification>.Continuation] = [:]
        var finished = false
    }

    private let state = Mutex(State())

    package init() {}

    package func subscribe() -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream<ChangeNotification>.makeStream()
        let id = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            state.nextId += 1
            state.subscribers[state.nextId] = continuation
            return state.nextId
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    package func yield(_ notification: ChangeNotification) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(notification) }
    }

    package func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Parses a `'<app>:<version>'` notification payload (the app id may itself contain colons).
    package static func parse(payload: String) -> ChangeNotification? {
        guard let colon = payload.lastIndex(of: ":"),
            let version = Int64(payload[payload.index(after: colon)...])
        else { return nil }
        return ChangeNotification(appId: String(payload[..<colon]), serverVersion: version)
    }

    /// The payload of a notification, as PostgreSQL's NOTIFY carries it.
    package static func payload(of notification: ChangeNotification) -> String {
        "\(notification.appId):\(notification.serverVersion)"
    }
}
