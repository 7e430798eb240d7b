import Foundation
@testable import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct TokenRefreshTests {
    @Test func anAccessTokenTheServerFindsExpiredIsRefreshedOnceAndTheRequestRetried() async throws {
        let clock = TestClock(Date())
        try await withTestApp(clock: clock.now) { t in
            let user = try await t.app.login(credentials: .anonymous)
            let before = try #require(user.accessToken)
            // The server's clock moves past the token's expiry; the client's does not, so the client learns it from
            // the 401.
            clock.advance(by: 3_600)
            t.transport.clear()
            _ = try await user.refreshCustomData()
            #expect(t.transport.requests == ["GET auth/profile", "POST auth/session", "GET auth/profile"])
            let after = try #require(user.accessToken)
            #expect(after != before)
            #expect(try await t.server.auth.authenticate(accessToken: after).userId == user.id)
            // The refreshed token is persisted.
            #expect(t.restartedApp().allUsers[user.id]?.accessToken == after)
        }
    }

    @Test func aTokenThatExpiresWithin30SecondsIsRefreshedBeforeUse() async throws {
        // The server issues tokens that expire 20 s from the client's now.
        let clock = TestClock(Date().addingTimeInterval(-1_780))
        try await withTestApp(clock: clock.now) { t in
            let user = try await t.app.login(credentials: .anonymous)
            let stale = try #require(user.accessToken)
            let expiry = try #require(AccessTokenClaims.expiry(of: stale))
            // 20 s after the clock was set, so under 30 s from now however long the set-up took on a loaded machine.
            #expect(expiry.timeIntervalSinceNow < 30)
            clock.advance(by: 5)
            t.transport.clear()
            let fresh = try await user.accessToken()
            #expect(t.transport.requests == ["POST auth/session"])
            #expect(fresh != stale && user.accessToken == fresh)
        }
    }

    @Test func aValidTokenIsReusedAndForceRefreshAlwaysAsks() async throws {
        try await withTestApp { t in
            let user = try await t.app.login(credentials: .anonymous)
            t.transport.clear()
            #expect(try await user.accessToken() == user.accessToken)
            #expect(t.transport.requests.isEmpty)
            _ = try await user.accessToken(forceRefresh: true)
            #expect(t.transport.requests == ["POST auth/session"])
        }
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        try await withTestApp { t in
            let user = try await t.app.login(credentials: .anonymous)
            t.transport.delays["auth/session"] = .milliseconds(300)
            t.transport.clear()
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<5 { group.addTask { try await user.accessToken(forceRefresh: true) } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(t.transport.requests == ["POST auth/session"])
        }
    }

    @Test func aRefusedRefreshTokenLogsTheUserOut() async throws {
        try await withTestApp { t in
            let user = try await t.emailUser()
            // The session ends on the server (as after a logout on another device).
            try await t.server.auth.logout(refreshToken: try #require(user.refreshToken))
            let error = await appError { try await user.accessToken(forceRefresh: true) }
            #expect(error?.code == .invalidSession && error?.message == "the refresh token's session has ended")
            #expect(!user.isLoggedIn && user.state == .loggedOut && t.app.currentUser == nil)
            #expect(t.app.allUsers[user.id] === user)
        }
    }

    /// A synced file's session whose user's refresh token the server no longer accepts reports `.clientUserError`
    /// (the original's AuthError → 5) to the error handler, and the user is logged out.
    @Test func aSessionWhoseRefreshTokenIsRefusedReportsAClientUserError() async throws {
        let clock = TestClock(Date())
        try await withTestApp(clock: clock.now) { t in
            let reports = SyncReports()
            reports.install(on: t.app)
            let user = try await t.emailUser()
            let configuration = numberedItemsConfiguration(user)
            let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
            let session = try #require(realm.syncSession)
            // The session ends on the server, and the access token expires there: the next connection needs a
            // refresh, which the server refuses.
            try await t.server.auth.logout(refreshToken: try #require(user.refreshToken))
            clock.advance(by: 3_600)
            session.suspend()
            session.resume()
            let errors = try await reports.waitForErrors(1, timeout: .seconds(60))
            #expect(errors.first?.code == .clientUserError, "\(errors)")
            #expect(errors.first?.message.hasPrefix("Unable to refresh the user access token") == true)
            try await eventually(timeout: .seconds(30), "the log-out") { !user.isLoggedIn }
            try? await user.remove()
        }
    }

    /// An admin disables a user whose synced Realm is connected (`PUT /api/admin/v1/users/{id}/disable`): the
    /// server closes the connection, the next one is refused at its token, the refresh too, and the session reports
    /// `.clientUserError` and logs the user out, as for any refused refresh token.
    @Test func aUserDisabledByAnAdminWhileConnectedIsLoggedOut() async throws {
        try await withTestApp { t in
            let reports = SyncReports()
            reports.install(on: t.app)
            let user = try await t.emailUser()
            let configuration = numberedItemsConfiguration(user)
            let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
            #expect(realm.syncSession?.connectionState == .connected)
            let adminKey = try String(contentsOf: t.server.dataDirectory.appendingPathComponent("admin-key"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let disabled = try await t.server.client.send("PUT", "/api/admin/v1/users/\(user.id)/disable",
                                                          headers: ["X-Admin-Key": adminKey])
            #expect(disabled.status == 204)
            let errors = try await reports.waitForErrors(1, timeout: .seconds(60))
            #expect(errors.first?.code == .clientUserError, "\(errors)")
            try await eventually(timeout: .seconds(30), "the log-out") { !user.isLoggedIn }
            #expect(realm.syncSession?.state != .active, "the session stopped with the log-out")
        }
    }

    @Test func aUserDisabledOnTheServerIsUserNotFound() async throws {
        try await withTestApp { t in
            let user = try await t.emailUser()
            var stored = try #require(try await t.server.storage.user(appId: t.server.appId, id: user.id))
            stored.disabled = true
            try await t.server.storage.updateUser(stored)
            let error = await appError { try await user.refreshCustomData() }
            #expect(error?.code == .userNotFound && error?.httpStatusCode == 401)
            #expect(error?.message == "the token's user does not exist or is disabled")
            #expect(!user.isLoggedIn)
        }
    }

    @Test func aUserDeletedOnTheServerLosesTheirSession() async throws {
        try await withTestApp { t in
            let user = try await t.emailUser()
            try await t.server.storage.deleteUser(appId: t.server.appId, id: user.id)
            let error = await appError { try await user.refreshCustomData() }
            #expect(error?.code == .invalidSession && error?.httpStatusCode == 401)
            #expect(!user.isLoggedIn)
        }
    }

    @Test func theSyncLayersHooks() async throws {
        try await withTestApp { t in
            #expect(t.app.baseURL.absoluteString == t.server.baseURL)
            let user = try await t.app.login(credentials: .anonymous)
            let directory = user.syncDirectory
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue)
            #expect(directory.standardizedFileURL.path
                == t.root.appendingPathComponent(t.server.appId).appendingPathComponent(user.id).standardizedFileURL.path)
            #expect(user.app.syncManager === t.app.syncManager)
        }
    }
}
