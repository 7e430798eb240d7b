import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// A session's WebSocket ends with the session's use of it, however the use ends.
@Suite(.timeLimit(.minutes(3))) struct ConnectionLifetimeTests {
    /// Suspending and resuming over and over (many suspends land while the socket is still connecting, some while
    /// the session binds) leaves no connection open on the server once the session is suspended; before, a socket
    /// whose connect was cancelled stayed open, with its pings, for as long as the process lived.
    @Test func suspendingWhileConnectingLeavesNoSocketOpen() async throws {
        let storage = MemoryStorage()
        let app = AppDefinition.development(appId: "lifetime")
        let settings = try SyncAppSettings(app: app)
        let engine = SyncEngine(storage: storage) { $0 == settings.appId ? settings : nil }
        try await withTestServer(configuration: app, storage: storage, handler: engine) { server in
            try await withClientApp(server) { clientApp in
                // The session's log, printed if the upload after the storm does not finish.
                let log = KillTests.LockedValue<[String]>([])
                clientApp.syncManager.logLevel = .debug
                clientApp.syncManager.logger = { _, line in log.withLock { $0.append("\(Date().timeIntervalSince1970) \(line)") } }
                let user = try await clientApp.login(credentials: .anonymous)
                // B's Realm is kept open to the end: a session whose file has no open Realm closes its connection
                // `connectionLingerTime` (30 s) after its uploads, which a slow run reaches.
                let (realm, other) = try await openTwoDevices(user)
                defer { withExtendedLifetime(other) {} }
                let session = try #require(realm.syncSession)
                try await eventually("the first connection") { engine.activeConnections >= 1 }
                var random = SystemRandomNumberGenerator()
                for round in 0..<40 {
                    session.suspend()
                    session.resume()
                    // From no wait at all (the connect is cut short) to long enough for the session to bind.
                    let pause = round % 4 == 3 ? Int.random(in: 20...60, using: &random) : Int.random(in: 0...3, using: &random)
                    try await Task.sleep(for: .milliseconds(pause))
                }
                // The last resume's connection works: a write still syncs.
                let item = ConvergenceItem()
                try realm.write { realm.add(item) }
                do {
                    // 60 s: under two full test runs at once, the last connection bound 30 s after the storm began.
                    try await withDeadline(.seconds(60), "upload after the suspends") { try await session.wait(for: .upload) }
                } catch {
                    Issue.record("\(error); the session's log:\n\(log.withLock { $0 }.suffix(40).joined(separator: "\n"))")
                    throw error
                }
                session.suspend()
                // The other device (B) keeps its one connection; this one's are all closed.
                try await eventually(timeout: .seconds(20), "only B's connection is left: \(engine.activeConnections)") {
                    engine.activeConnections == 1
                }
                // And it stays so: a socket left open (the defect) never closes. A connect cut short by a suspend can
                // still complete its handshake on a loaded machine a moment later, and is then closed at once, so
                // the count is looked at again until it settles rather than at one instant.
                try await Task.sleep(for: .milliseconds(500))
                try await eventually(timeout: .seconds(20), "still only B's connection: \(engine.activeConnections)") {
                    engine.activeConnections == 1
                }
            }
        }
    }
}
