import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// An open that downloads first, when the server cannot be reached: with `cancelAsyncOpenOnNonFatalErrors` it
/// fails with the connection's error (`SyncError.connectionFailed`, or POSIX `ETIMEDOUT` after the app's
/// `syncTimeouts.connectTimeout`), as the original does; without it, it keeps waiting for a connection.
@Suite(.serialized, .timeLimit(.minutes(2))) struct AsyncOpenFailureTests {
    @Test func anUnreachableServerFailsTheOpenWithConnectionFailed() async throws {
        try await withStoppedServer("open-refused") { app, configuration, _ in
            var cancelling = configuration
            cancelling.syncConfiguration?.cancelAsyncOpenOnNonFatalErrors = true
            let started = ContinuousClock.now
            do {
                try await withDeadline(.seconds(30), "the open") { [cancelling] in _ = try await Realm(configuration: cancelling, downloadBeforeOpen: .always) }
                Issue.record("the open succeeded without a server")
            } catch SyncError.connectionFailed {
                #expect(ContinuousClock.now - started < .seconds(20))
            }
            // Again (a user's "Retry"): the session's next attempt refreshes the token first, which fails too.
            do {
                try await withDeadline(.seconds(30), "the second open") { [cancelling] in _ = try await Realm(configuration: cancelling, downloadBeforeOpen: .always) }
                Issue.record("the second open succeeded without a server")
            } catch SyncError.connectionFailed {}
            // Without the option the open waits for a connection (the original retries too).
            await #expect(throws: SyncTestTimeout.self) {
                try await expectTimeout(.seconds(2), "the open") { _ = try await Realm(configuration: configuration, downloadBeforeOpen: .always) }
            }
        }
    }

    @Test func aServerThatNeverAnswersTimesOutTheOpenWithTheAppsConnectTimeout() async throws {
        try await withStoppedServer("open-timeout", connectTimeout: 400) { _, configuration, port in
            // Something listens on the server's port but never answers: the WebSocket handshake cannot finish.
            let listener = try SilentListener(port: port)
            defer { listener.close() }
            var cancelling = configuration
            cancelling.syncConfiguration?.cancelAsyncOpenOnNonFatalErrors = true
            do {
                try await withDeadline(.seconds(30), "the open") { [cancelling] in _ = try await Realm(configuration: cancelling, downloadBeforeOpen: .always) }
                Issue.record("the open succeeded without a server")
            } catch let error as NSError where error.domain == NSPOSIXErrorDomain {
                #expect(error.code == Int(ETIMEDOUT))
                #expect(error.localizedDescription.contains("timed out after 0.4 seconds"), "\(error.localizedDescription)")
            }
        }
    }

    /// A suspend while the socket waits for a handshake that never comes ends that attempt at once. Before, the
    /// suspend (and every control after it: the next resume too) waited until the socket opened or the app's
    /// connect timeout passed — two minutes by default.
    @Test func aSuspendWhileConnectingEndsTheAttemptAtOnce() async throws {
        try await withStoppedServer("suspend-connecting", connectTimeout: 60_000) { _, configuration, port in
            let listener = try SilentListener(port: port)
            defer { listener.close() }
            let realm = try await Realm(configuration: configuration)
            let session = try #require(realm.syncSession)
            try await eventually(timeout: .seconds(10), "the attempt to connect") { session.connectionState == .connecting }
            try await Task.sleep(for: .milliseconds(300))
            let started = ContinuousClock.now
            session.suspend()
            try await withDeadline(.seconds(10), "the suspend") { await session.controlSettled() }
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(session.state == .inactive && session.connectionState == .disconnected)
            // A resume starts a new attempt at once (it too waits for the silent listener).
            session.resume()
            try await withDeadline(.seconds(10), "the resume") { await session.controlSettled() }
            try await eventually(timeout: .seconds(10), "the new attempt") { session.connectionState == .connecting }
            session.suspend()
            try await withDeadline(.seconds(10), "the second suspend") { await session.controlSettled() }
        }
    }

    @Test func aCancelledWaitStopsWaitingWithoutAServer() async throws {
        try await withStoppedServer("wait-cancelled") { _, configuration, _ in
            let realm = try await Realm(configuration: configuration)
            try realm.write {
                let item = NumberedItem()
                item.number = 1
                realm.add(item)
            }
            let session = try #require(realm.syncSession)
            for direction in [SyncSession.ProgressDirection.download, .upload] {
                let waiting = Task { try await session.wait(for: direction) }
                try await Task.sleep(for: .milliseconds(200))
                waiting.cancel()
                let result = try await withDeadline(.seconds(5), "the cancelled wait for \(direction)") { await waiting.result }
                #expect(throws: CancellationError.self, "\(direction)") { try result.get() }
            }
            // A cancelling open that fails leaves no wait behind: a second wait is cancelled the same way.
            var cancelling = configuration
            cancelling.syncConfiguration?.cancelAsyncOpenOnNonFatalErrors = true
            do {
                try await withDeadline(.seconds(30), "the open") { [cancelling] in _ = try await Realm(configuration: cancelling, downloadBeforeOpen: .always) }
                Issue.record("the open succeeded without a server")
            } catch is SyncTestTimeout {
                Issue.record("the cancelling open did not fail")
            } catch {
                // `.connectionFailed`, or the connect timeout on a loaded machine.
            }
            let waiting = Task { try await session.wait(for: .download) }
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
        }
    }

    /// `AsyncOpenTask.cancel()` ends the open's wait for the download: its callback is not called, its Realm closes,
    /// and with no Realm of the file open the session stops (before, the open waited for the server for ever).
    @Test func aCancelledAsyncOpenStopsWaitingAndItsSessionStops() async throws {
        try await withStoppedServer("open-cancelled") { _, configuration, _ in
            let called = KillTests.LockedValue(false)
            let task = Realm.asyncOpen(configuration: configuration, callbackQueue: DispatchQueue(label: "open")) { _ in
                called.withLock { $0 = true }
            }
            try await Task.sleep(for: .milliseconds(300))
            let session = try #require(SyncSessionRegistry.shared.session(forPath: configuration.resolvedPath))
            #expect(session.state == .active, "the open's session tries to connect")
            task.cancel()
            try await eventually("the session stops") { session.state == .inactive }
            try await Task.sleep(for: .milliseconds(200))
            #expect(!called.withLock { $0 })
        }
    }

    /// Logs in to a real server process, opens the file once (so that it exists and has a session), stops the
    /// server, and runs `body` with the app, the configuration and the server's port.
    /// `connectTimeout` (ms) is the app's; long by default, so that a refused connection is not taken for a timeout on a
    /// loaded machine.
    func withStoppedServer(_ name: String, connectTimeout: UInt = 10_000,
                           _ body: (App, Realm.Configuration, Int) async throws -> Void) async throws {
        let directory = try KillTests.temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await OutpostServerProcess.launch(
            arguments: ["--port", "0", "--data-dir", directory.appendingPathComponent("server").path])
        let app = App(id: AppDefinition.developmentAppId, configuration: AppConfiguration(
            baseURL: server.baseURL, syncTimeouts: SyncTimeoutOptions(connectTimeout: connectTimeout, connectionLingerTime: 200),
            rootDirectory: directory.appendingPathComponent("client")))
        app.syncManager.logLevel = .warn
        do {
            let user = try await app.login(credentials: .anonymous)
            let configuration = numberedItemsConfiguration(user)
            _ = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
            _ = try await server.terminate()
            try await body(app, configuration, server.port)
            for user in app.allUsers.values where user.isLoggedIn { try? await user.logOut() }
        } catch {
            for user in app.allUsers.values where user.isLoggedIn { try? await user.logOut() }
            _ = try? await server.terminate()
            throw error
        }
    }
}

/// A TCP socket listening on 127.0.0.1 that never accepts: connections complete in the kernel, nothing answers.
struct SilentListener {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = LoopbackSocket.address(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            Glibc.close(descriptor)
            throw TestServerError("cannot listen on port \(port): errno \(errno)")
        }
    }

    func close() { Glibc.close(descriptor) }
}
