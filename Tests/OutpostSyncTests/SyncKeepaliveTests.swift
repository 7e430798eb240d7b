import Foundation
import Testing

@testable import Outpost

/// `SyncKeepalive` driven by transcripts: a connection's ticks and the server's pongs at given times (seconds after
/// the connection opened) in, the pings and closes it asks for out. No server, no clock.
@Suite struct SyncKeepaliveTests {
    /// Runs `events` (`"6.0 tick"`, `"6.1 pong"`, `"7.0 tick waiting"`) and returns what the keepalive asked for, one
    /// line per action: `"6.0 ping"`, `"11.1 close"`.
    private func transcript(period: Int, timeout: Int, _ events: [String]) -> [String] {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var keepalive = SyncKeepalive(pingPeriod: period, pongTimeout: timeout, connectedAt: start)
        var out: [String] = []
        for event in events {
            let parts = event.split(separator: " ")
            let at = start.addingTimeInterval(Double(parts[0])!)
            switch parts[1] {
            case "pong":
                keepalive.pongReceived()
            default:
                switch keepalive.tick(at: at, readerWaiting: parts.count > 2 && parts[2] == "waiting") {
                case .sendPing(let timestamp):
                    #expect(timestamp == Int64(at.timeIntervalSince1970 * 1000))
                    out.append("\(parts[0]) ping")
                case .close: out.append("\(parts[0]) close")
                case .none: break
                }
            }
        }
        return out
    }

    private func ticks(_ from: Double, _ to: Double, step: Double = 1) -> [String] {
        stride(from: from, through: to, by: step).map { String(format: "%.1f tick", $0) }
    }

    /// A pong timeout shorter than the ping period keeps a healthy connection: the timeout runs from each ping, not
    /// from the last pong (which dropped the connection at every second ping before).
    @Test func aShortPongTimeoutKeepsAHealthyConnection() {
        let events = ticks(1, 6) + ["6.1 pong"] + ticks(7, 12) + ["12.2 pong"] + ticks(13, 20)
        #expect(transcript(period: 6_000, timeout: 5_000, events) == ["6.0 ping", "12.0 ping", "18.0 ping"])
    }

    /// No pong for longer than the timeout after a ping closes the connection, at the first tick past it.
    @Test func aPongTimeoutCloses() {
        let events = ticks(1, 6) + ["11.0 tick", "11.1 tick"]
        #expect(transcript(period: 6_000, timeout: 5_000, events) == ["6.0 ping", "11.1 close"])
    }

    /// A late pong inside the timeout keeps the connection, and the next ping follows the period from the last one.
    @Test func aLatePongInsideTheTimeout() {
        let events = ticks(1, 10) + ["10.5 pong"] + ticks(11, 12)
        #expect(transcript(period: 6_000, timeout: 5_000, events) == ["6.0 ping", "12.0 ping"])
    }

    /// While the reader waits for the session to take what it read, the pong is behind those messages: the wait
    /// does not count against the server.
    @Test func aWaitingReaderIsNotASilentServer() {
        let events = ticks(1, 6) + ["9.0 tick waiting", "13.0 tick waiting", "17.0 tick", "18.5 tick"]
        #expect(transcript(period: 6_000, timeout: 5_000, events) == ["6.0 ping", "18.5 close"])
    }

    @Test func ticksFollowTheShorterPeriod() {
        let start = Date()
        #expect(SyncKeepalive(pingPeriod: 60_000, pongTimeout: 120_000, connectedAt: start).tickInterval == .seconds(1))
        #expect(SyncKeepalive(pingPeriod: 6_000, pongTimeout: 500, connectedAt: start).tickInterval == .milliseconds(500))
        #expect(SyncKeepalive(pingPeriod: 50, pongTimeout: 50, connectedAt: start).tickInterval == .milliseconds(100))
    }
}
