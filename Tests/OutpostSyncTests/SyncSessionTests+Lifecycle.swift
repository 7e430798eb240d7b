import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// A session's life: log-out and log-in, suspension, its connection state and the observers of it, stopping when
/// the last Realm of the file closes, and the keepalive that keeps a healthy connection up.
extension SyncSessionTests {
    /// Logging out stops the sessions of the user's files; logging in again starts them again for the files still
    /// open, and an open of a cached instance starts one too (before, such a file did not sync again until every
    /// Realm of it was closed). While the user is out, `realm.syncSession` is the same session, inactive, and
    /// `resume()` does nothing (as in the original; it was nil before).
    @Test func loggingInAgainResumesTheSessionsOfOpenFiles() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "relogin")) { server in
            try await withClientApp(server) { app in
                let (user, credentials) = try await Self.registeredUser(app, email: "ida@example.com")
                let config = seedConfiguration(user)
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                let first = try #require(realm.syncSession)
                try await user.logOut()
                #expect(realm.syncSession === first)
                #expect(first.state == .inactive)
                #expect(first.connectionState == .disconnected)
                first.resume()
                try await Task.sleep(for: .milliseconds(300))
                #expect(first.state == .inactive, "resume() while logged out does nothing")
                #expect(first.connectionState == .disconnected)
                let item = Item()
                item.ownerId = user.id
                item.itemName = "written while logged out"
                item.complexity = 1
                try realm.write { realm.add(item) }

                let again = try await app.login(credentials: credentials)
                #expect(again.id == user.id)
                let session = try #require(realm.syncSession)
                #expect(session === first, "the same session resumes")
                #expect(session.state == .active)
                try await withDeadline(.seconds(30), "the upload after logging in again") { try await session.wait(for: .upload) }
                let onServer = try await server.storage.document(appId: server.appId, collection: "Item", primaryKey: .objectId(item._id))
                #expect(onServer?["itemName"] == .string("written while logged out"))

                // Out, an open while logged out (the same inactive session), and in again: the file syncs again.
                try await again.logOut()
                let whileOut = try await Realm(configuration: config)
                #expect(whileOut.syncSession === first)
                #expect(first.state == .inactive)
                _ = try await app.login(credentials: credentials)
                let reopened = try await Realm(configuration: config)
                #expect(reopened.syncSession?.state == .active)
                #expect(whileOut.syncSession?.state == .active)
            }
        }
    }

    /// A suspension outlasts a log-out and the next login, as the original's paused session: whether the app
    /// suspended the session before the log-out or while the user was out, the login leaves it inactive, and only
    /// `resume()` starts it again (before, the login resumed it); a `resume()` while the user is out ends the
    /// suspension, and the login starts the session.
    @Test func aSuspensionOutlastsLogOutAndLogIn() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "suspended-relogin")) { server in
            try await withClientApp(server) { app in
                app.syncManager.logLevel = .debug  // printed only if the test fails (the upload stall under load)
                let (user, credentials) = try await Self.registeredUser(app, email: "eve@example.com")
                let realm = try await Realm(configuration: seedConfiguration(user), downloadBeforeOpen: .always)
                let session = try #require(realm.syncSession)
                for suspendWhileOut in [false, true] {
                    if !suspendWhileOut { session.suspend() }
                    try await user.logOut()
                    if suspendWhileOut { session.suspend() }
                    let id = ObjectId.generate()
                    try realm.write {
                        realm.create(Item.self, value: ["_id": id, "ownerId": user.id, "itemName": "while suspended", "complexity": 1])
                    }
                    _ = try await app.login(credentials: credentials)
                    #expect(realm.syncSession === session)
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(session.state == .inactive, "the login leaves a suspended session alone (suspended while out: \(suspendWhileOut))")
                    #expect(session.connectionState == .disconnected)
                    #expect(try await server.storage.document(appId: server.appId, collection: "Item", primaryKey: .objectId(id)) == nil)
                    session.resume()
                    #expect(session.state == .active)
                    try await withDeadline(.seconds(30), "the upload after resume()") { try await session.wait(for: .upload) }
                    let onServer = try await server.storage.document(appId: server.appId, collection: "Item", primaryKey: .objectId(id))
                    #expect(onServer?["itemName"] == .string("while suspended"))
                }
                // `resume()` while the user is out ends the suspension only: the login starts the session.
                session.suspend()
                try await user.logOut()
                session.resume()
                #expect(session.state == .inactive)
                _ = try await app.login(credentials: credentials)
                #expect(realm.syncSession === session)
                #expect(session.state == .active)
            }
        }
    }

    /// A logged-out user's session is kept only while a Realm of its file is open: once the last one closes it is
    /// forgotten (a `wait(for:)` on it fails instead of waiting for ever). A file opened while the user is out gets a
    /// new session, inactive (as in the original; it had none before), which the user's login starts; the upload
    /// queued meanwhile goes out then.
    @Test func aLoggedOutSessionIsKeptOnlyForOpenRealms() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "logged-out-session")) { server in
            try await withClientApp(server) { app in
                let (user, credentials) = try await Self.registeredUser(app, email: "ada@example.com")
                let config = seedConfiguration(user)
                var realm: Realm? = try await Realm(configuration: config, downloadBeforeOpen: .always)
                let first = try #require(realm?.syncSession)
                try await user.logOut()
                #expect(realm?.syncSession === first)
                // A write while out, and a wait for its upload: the session would resume on a login...
                let id = ObjectId.generate()
                try realm?.write {
                    // Added as values: a managed object would keep the Realm open.
                    realm?.create(Item.self, value: ["_id": id, "ownerId": user.id, "itemName": "queued while out", "complexity": 1])
                }
                let waiting = Task { try await first.wait(for: .upload) }
                realm = nil  // ...but the last Realm of the file closes: the session goes, and the wait fails
                let outcome = try await withDeadline(.seconds(10), "the abandoned wait") { await waiting.result }
                guard case .failure(let error as SyncError) = outcome else {
                    Issue.record("the wait did not fail with a SyncError: \(outcome)")
                    return
                }
                #expect(error.code == .clientSessionError)
                let whileOut = try await Realm(configuration: config)
                let outSession = try #require(whileOut.syncSession, "a file opened while the user is out has a session")
                #expect(outSession !== first)
                #expect(outSession.state == .inactive)
                #expect(outSession.connectionState == .disconnected)
                outSession.resume()
                try await Task.sleep(for: .milliseconds(300))
                #expect(outSession.state == .inactive, "resume() while logged out does nothing")
                // Logging in again starts that session.
                _ = try await app.login(credentials: credentials)
                let session = try #require(whileOut.syncSession)
                #expect(session === outSession)
                #expect(session.state == .active)
                try await withDeadline(.seconds(30), "the upload after logging in") { try await session.wait(for: .upload) }
                let onServer = try await server.storage.document(appId: server.appId, collection: "Item", primaryKey: .objectId(id))
                #expect(onServer?["itemName"] == .string("queued while out"))
            }
        }
    }

    /// `observe(\.connectionState)` has the original's key-value-observing shape: with `.initial` it reports the
    /// current state at once, then each change (suspend: disconnected; resume: connecting, then connected); a
    /// released or invalidated token reports nothing more.
    @Test func connectionStateCanBeObserved() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "observe-state")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let realm = try await Realm(configuration: seedConfiguration(user), downloadBeforeOpen: .always)
                let session = try #require(realm.syncSession)
                try await eventually { session.connectionState == .connected }
                let seen = ObservedStates()
                let token = session.observe(\.connectionState, options: [.initial, .new]) { observed, change in
                    #expect(observed === session)
                    if let state = change.newValue { seen.append(state) }
                }
                let states = session.observe(\.state, options: [.new, .old]) { _, change in
                    if let old = change.oldValue, let new = change.newValue { seen.appendState(old, new) }
                }
                #expect(seen.values == [.connected])
                session.suspend()
                try await eventually { seen.values.last == .disconnected }
                session.resume()
                try await eventually { seen.values.last == .connected }
                #expect(seen.values == [.connected, .disconnected, .connecting, .connected])
                #expect(seen.stateChanges.first == "active→inactive")
                token.invalidate()
                states.invalidate()
                session.suspend()
                try await eventually { session.connectionState == .disconnected }
                #expect(seen.values.count == 4)
                session.resume()
                withExtendedLifetime(realm) {}  // an open Realm keeps the session (it stops after the linger time without one)
            }
        }
    }

    /// Suspends and resumes from several threads at once: the state observer sees each change once, in order,
    /// each starting from the value the one before it left.
    @Test func stateChangesFromSeveralThreadsAreObservedOnceInOrder() async throws {
        try await withTestServer(configuration: try seedServerApp(appId: "observe-race")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let realm = try await Realm(configuration: seedConfiguration(user), downloadBeforeOpen: .always)
                let session = try #require(realm.syncSession)
                let seen = ObservedStates()
                let token = session.observe(\.state, options: [.new, .old]) { _, change in
                    if let old = change.oldValue, let new = change.newValue { seen.appendState(old, new) }
                }
                // 100 calls: each start or stop is queued and run in turn, with a real connect or close, so 400 took
                // over a minute on a loaded machine (the full suite); the race is the same with fewer.
                DispatchQueue.concurrentPerform(iterations: 100) { i in
                    if i % 2 == 0 { session.suspend() } else { session.resume() }
                }
                session.resume()
                try await eventually { session.connectionState == .connected }
                token.invalidate()
                withExtendedLifetime(realm) {}  // an open Realm keeps the session (it stops after the linger time without one)
                let changes = seen.stateChanges
                #expect(changes.count >= 2)
                for (a, b) in zip(changes, changes.dropFirst()) {
                    #expect(a.split(separator: "→").last == b.split(separator: "→").first, "\(a) then \(b)")
                }
                #expect(changes.allSatisfy { change in change.split(separator: "→").count == 2 && Set(change.split(separator: "→")).count == 2 })
            }
        }
    }

    /// As the original's default stop policy: when the app's last Realm of a file closes, the session uploads what
    /// was committed, lingers `connectionLingerTime`, and stops; opening the file again starts it again.
    @Test func closingTheLastRealmStopsTheSessionOnceItsChangesAreUploaded() async throws {
        try await withTestServer(configuration: .development(appId: "close-stops")) { server in
            try await withClientApp(server, syncTimeouts: SyncTimeoutOptions(connectionLingerTime: 300)) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = Self.itemsConfiguration(user, "closing.realm")
                let written = ObjectId.generate()
                let session: SyncSession = try await {
                    let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                    try realm.write {
                        let item = ConvergenceItem()
                        item._id = written
                        realm.add(item)
                    }
                    return try #require(realm.syncSession)
                }()
                // The Realm is gone: the session stops after the upload and the linger time.
                try await eventually("the session stops") { session.state == .inactive && session.connectionState == .disconnected }
                let other = try await Realm(configuration: Self.itemsConfiguration(user, "other.realm"), downloadBeforeOpen: .always)
                #expect(other.object(ofType: ConvergenceItem.self, forPrimaryKey: written) != nil)

                // Opening the file again starts it, and it downloads again.
                let again = try await Realm(configuration: config)
                try await eventually("the session starts again") { session.state == .active && session.connectionState == .connected }
                let second = ConvergenceItem()
                try other.write { other.add(second) }
                let upload = try #require(other.syncSession)
                try await withDeadline(.seconds(30), "the upload") { try await upload.wait(for: .upload) }
                try await withDeadline(.seconds(30), "the download") { try await session.wait(for: .download) }
                again.refresh()
                #expect(again.objects(ConvergenceItem.self).count == 2)
            }
        }
    }

    /// A Realm opened again within the linger time finds its session still connected: no reconnect.
    @Test func aRealmOpenedAgainWithinTheLingerTimeKeepsTheConnection() async throws {
        try await withTestServer(configuration: .development(appId: "close-linger")) { server in
            try await withClientApp(server, syncTimeouts: SyncTimeoutOptions(connectionLingerTime: 10_000)) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = Self.itemsConfiguration(user, "linger.realm")
                let seen = ObservedStates()
                let (session, token): (SyncSession, SyncSessionObservation) = try await {
                    let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                    let session = try #require(realm.syncSession)
                    try await eventually { session.connectionState == .connected }
                    let token = session.observe(\.connectionState, options: [.new]) { _, change in
                        if let state = change.newValue { seen.append(state) }
                    }
                    try realm.write { realm.add(ConvergenceItem()) }
                    return (session, token)
                }()
                try await withDeadline(.seconds(30), "the upload") { try await session.wait(for: .upload) }
                try await Task.sleep(for: .milliseconds(300))
                let again = try await Realm(configuration: config)
                try again.write { again.add(ConvergenceItem()) }
                try await withDeadline(.seconds(30), "the second upload") { try await session.wait(for: .upload) }
                #expect(session.state == .active)
                #expect(!seen.values.contains(.disconnected), "\(seen.values)")
                token.invalidate()
            }
        }
    }

    /// An observation whose handler holds the last reference to a Realm of the file can be invalidated: the Realm
    /// closes while the session forgets the handler (it told the session under the session's lock, which hung).
    @Test func anObservationHoldingTheLastRealmCanBeInvalidated() async throws {
        try await withTestServer(configuration: .development(appId: "observe-last")) { server in
            try await withClientApp(server, syncTimeouts: SyncTimeoutOptions(connectionLingerTime: 100)) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = Self.itemsConfiguration(user, "observed.realm")
                let (session, token): (SyncSession, SyncSessionObservation) = try await {
                    let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                    let session = try #require(realm.syncSession)
                    return (session, session.observe(\.state) { _, _ in _ = realm.isEmpty })
                }()
                let invalidated = Task.detached { token.invalidate() }
                try await withDeadline(.seconds(10), "the invalidation") { await invalidated.value }
                try await eventually("the session stops") { session.state == .inactive }
            }
        }
    }

    /// Pings go out every `pingKeepalivePeriod` and only a pong missing for `pongKeepaliveTimeout` after one drops the
    /// connection: with a pong timeout shorter than the ping period, a healthy connection stays up (it was dropped
    /// at every ping tick before, the timeout being measured from the last pong).
    ///
    /// The server is a process of its own: an in-process server's pongs waited behind the whole suite's tasks on the
    /// two cooperative threads, and even a 5 s pong timeout was exceeded in a full CI run (once more in a local full
    /// run: the client's own reader can wait that long too, hence 7 s). The keepalive's logic itself is tested without
    /// a clock in SyncKeepaliveTests and SyncClientStateMachineTests.
    @Test func aShortPongTimeoutKeepsAHealthyConnection() async throws {
        let directory = try KillTests.temporaryDirectory("pings")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await OutpostServerProcess.launch(
            arguments: ["--port", "0", "--data-dir", directory.appendingPathComponent("server").path])
        do {
            let app = App(id: AppDefinition.developmentAppId, configuration: AppConfiguration(
                baseURL: server.baseURL, syncTimeouts: SyncTimeoutOptions(pingKeepalivePeriod: 8_000, pongKeepaliveTimeout: 7_000),
                rootDirectory: directory.appendingPathComponent("client")))
            let log = KillTests.LockedValue<[String]>([])
            app.syncManager.logLevel = .debug
            app.syncManager.logger = { _, line in log.withLock { $0.append("\(Date().timeIntervalSince1970) \(line)") } }
            let user = try await app.login(credentials: .anonymous)
            var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all"))
            })
            config.objectTypes = [ConvergenceItem.self]
            let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
            let session = try #require(realm.syncSession)
            try await eventually { session.connectionState == .connected }
            let seen = ObservedStates()
            let token = session.observe(\.connectionState, options: [.new]) { _, change in
                if let state = change.newValue { seen.append(state) }
            }
            // Two pings at least. Measured from the last pong (the defect this guards against), the timeout dropped the
            // connection at about 15 s; a pong may wait up to 7 s behind a busy machine's other tasks.
            try await Task.sleep(for: .seconds(18))
            #expect(seen.values.isEmpty, "the connection dropped: \(seen.values)\n\(log.withLock { $0 }.suffix(30).joined(separator: "\n"))")
            token.invalidate()
            withExtendedLifetime(realm) {}  // an open Realm keeps the session (it stops after the linger time without one)
            try await user.logOut()
        } catch {
            _ = try? await server.terminate()
            throw error
        }
        _ = try await server.terminate()
    }
}
