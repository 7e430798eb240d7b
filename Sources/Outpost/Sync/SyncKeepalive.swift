import Foundation

/// A sync connection's keepalive as a pure state machine: fed the connection's start, its ticks and the server's pongs
/// with the times they happened, it says when a ping is due and when the server has been silent too long. No clock,
/// no socket: transcript tests drive it (SyncKeepaliveTests), `SyncAgent` carries out what it answers.
///
/// A ping goes out every `pingPeriod` after the last ping or the connection's start; only a pong missing for longer
/// than `pongTimeout` after the ping it answers drops the connection (measured from the ping, not from the last pong,
/// so a pong timeout shorter than the ping period keeps a healthy connection).
struct SyncKeepalive: Equatable {
    enum Action: Equatable {
        case none
        /// Send a ping carrying this timestamp (milliseconds since 1970).
        case sendPing(timestamp: Int64)
        /// The server did not answer in time: close the connection (and reconnect).
        case close
    }

    /// Milliseconds.
    let pingPeriod: Int
    /// Milliseconds.
    let pongTimeout: Int
    private(set) var lastPingOrConnect: Date
    private(set) var unansweredPingSince: Date?

    init(pingPeriod: Int, pongTimeout: Int, connectedAt: Date) {
        self.pingPeriod = pingPeriod
        self.pongTimeout = pongTimeout
        lastPingOrConnect = connectedAt
    }

    /// How often the connection should tick: often enough for the shorter of the two periods (every 100 ms to 1 s).
    var tickInterval: Duration { .milliseconds(max(100, min(1_000, min(pingPeriod, pongTimeout)))) }

    /// A tick at `now`. `readerWaiting`: the connection's reader waits for the session to take what it read (a
    /// bootstrap applied as it arrives); the pong is behind those messages, and the connection is alive.
    mutating func tick(at now: Date, readerWaiting: Bool) -> Action {
        if let sent = unansweredPingSince {
            if readerWaiting {
                unansweredPingSince = now
            } else if now.timeIntervalSince(sent) * 1000 > Double(pongTimeout) {
                return .close
            }
            return .none
        }
        guard now.timeIntervalSince(lastPingOrConnect) * 1000 >= Double(pingPeriod) else { return .none }
        lastPingOrConnect = now
        unansweredPingSince = now
        return .sendPing(timestamp: Int64(now.timeIntervalSince1970 * 1000))
    }

    /// The server's pong arrived.
    mutating func pongReceived() {
        unansweredPingSince = nil
    }
}
