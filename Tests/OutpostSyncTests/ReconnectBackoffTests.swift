import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// `SyncSession.reconnect()` against a real `outpost-server` process that goes away and comes back on its port.
@Suite(.timeLimit(.minutes(3))) struct ReconnectBackoffTests {
    /// While connected, `reconnect()` does nothing (as in the original). Once the server is gone, the client backs
    /// off: 1 s, 2 s, 4 s, 8 s, then 16 s (plus up to 25 %). With the server back, `reconnect()` during that wait
    /// connects at once instead of at the end of it.
    @Test func reconnectSkipsTheBackoffWhenDisconnectedAndDoesNothingWhenConnected() async throws {
        let directory = try KillTests.temporaryDirectory("reconnect")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("server")
        var server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", dataDirectory.path])
        let port = server.port
        let timed = LockedLines()  // the sync log with the time since the start, printed if the test fails
        let start = ContinuousClock.now
        do {
            let app = App(id: AppDefinition.developmentAppId, configuration: AppConfiguration(
                baseURL: server.baseURL, rootDirectory: directory.appendingPathComponent("client")))
            let lines = LockedLines()
            app.syncManager.logLevel = .debug
            app.syncManager.logger = { _, line in
                lines.append(line)
                timed.append("\(ContinuousClock.now - start) \(line)")
            }
            let user = try await app.login(credentials: .anonymous)
            var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all"))
            })
            config.objectTypes = [ConvergenceItem.self]
            let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
            let session = try #require(realm.syncSession)
            func binds() -> Int { lines.all.filter { $0.contains("Sending: BIND") }.count }
            #expect(session.connectionState == .connected)
            #expect(binds() == 1)

            session.reconnect()
            try await session.wait(for: .download)
            try await Task.sleep(for: .milliseconds(300))
            #expect(session.connectionState == .connected)
            #expect(binds() == 1, "reconnect() while connected keeps the connection")

            // The server goes away: the client fails to connect, waiting longer each time.
            try await server.killAbruptly()
            let before = lines.all.count
            func failures() -> Int {
                lines.all.dropFirst(before).filter { $0.hasPrefix("Sync: Connection[") && !$0.contains("Session[") }.count
            }
            try await eventually(timeout: .seconds(90), "four failed attempts") { failures() >= 4 }
            let fourthFailure = ContinuousClock.now
            // The next attempt is due 16–20 s after the fourth failure; with the server back, reconnect() is sooner.
            server = try await KillTests.relaunch(dataDirectory: dataDirectory, port: port)
            let reconnectCalled = ContinuousClock.now
            session.reconnect()
            // The attempt after the fourth failure is due 16–20 s after it: one that starts sooner is reconnect()'s.
            // When it starts is what is checked, not when it connects: under two full test runs at once, connecting
            // took 11–15 s after reconnect().
            try await eventually(timeout: .seconds(60), "an attempt") { session.connectionState != .disconnected }
            let attempting = ContinuousClock.now
            // Connected, and bound (the state says connected as soon as the socket opens, before the BIND).
            try await eventually(timeout: .seconds(60), "connected again") {
                session.connectionState == .connected && binds() == 2
            }
            let connected = ContinuousClock.now
            let times = "fourth failure \(fourthFailure - start), reconnect() \(reconnectCalled - start), "
                + "attempt \(attempting - start), connected \(connected - start)"
            #expect(attempting - fourthFailure < .seconds(16), "\(times)")
            if attempting - fourthFailure >= .seconds(16) { print(times + "\n" + timed.all.joined(separator: "\n")) }
            #expect(failures() == 4, "no attempt in between")
            withExtendedLifetime(realm) {}  // an open Realm keeps the session (it stops after the linger time without one)
            try await user.logOut()
        } catch {
            print("sync log of the failed test:\n" + timed.all.joined(separator: "\n"))
            _ = try? await server.terminate()
            throw error
        }
        _ = try await server.terminate()
    }
}
