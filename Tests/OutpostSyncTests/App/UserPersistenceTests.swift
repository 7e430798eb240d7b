import Foundation
@testable import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct UserPersistenceTests {
    @Test func usersAreRestoredAfterARestart() async throws {
        try await withTestApp { t in
            let first = try await t.emailUser("gus@example.com")
            let anonymous = try await t.app.login(credentials: .anonymous)
            #expect(t.app.currentUser === anonymous)

            let restarted = t.restartedApp()
            #expect(restarted.allUsers.count == 2)
            let current = try #require(restarted.currentUser)
            #expect(current.id == anonymous.id && current !== anonymous && current.isLoggedIn)
            let restoredFirst = try #require(restarted.allUsers[first.id])
            #expect(restoredFirst.isLoggedIn && restoredFirst.refreshToken == first.refreshToken)
            // The restored tokens work.
            t.transport.clear()
            _ = try await restoredFirst.refreshCustomData()
            #expect(t.transport.requests == ["GET auth/profile"])
        }
    }

    @Test func metadataFileHoldsTokensButNoPasswordAndIsPrivate() async throws {
        try await withTestApp { t in
            let user = try await t.emailUser("hal@example.com", password: "very-secret-pw")
            let file = t.root.appendingPathComponent(t.server.appId).appendingPathComponent("users.json")
            let text = try String(contentsOf: file, encoding: .utf8)
            let refreshToken = try #require(user.refreshToken)
            #expect(text.contains(user.id) && text.contains(refreshToken))
            #expect(text.contains("\"state\":\"loggedIn\"") && text.contains("local-userpass"))
            #expect(!text.contains("very-secret-pw"))
            let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
        }
    }

    @Test func logOutKeepsTheUserAndEndsTheServerSession() async throws {
        try await withTestApp { t in
            let older = try await t.emailUser("ivy@example.com")
            let newer = try await t.emailUser("jay@example.com")
            #expect(t.app.currentUser === newer)
            let refreshToken = try #require(newer.refreshToken)
            try await newer.logOut()
            #expect(!newer.isLoggedIn && newer.state == .loggedOut)
            #expect(newer.accessToken == nil && newer.refreshToken == nil)
            #expect(t.app.allUsers[newer.id] === newer)
            // The current user is the last logged-in user still logged in.
            #expect(t.app.currentUser === older)
            await #expect(throws: AuthError.self) { try await t.server.auth.refreshAccessToken(refreshToken: refreshToken) }
            // Logging out twice does nothing.
            try await newer.logOut()
            let restarted = t.restartedApp()
            #expect(restarted.allUsers[newer.id]?.isLoggedIn == false)
            #expect(restarted.currentUser?.id == older.id)
            let denied = await appError { try await newer.accessToken(forceRefresh: false) }
            #expect(denied?.code == .invalidSession)
        }
    }

    @Test func switchChoosesTheCurrentUser() async throws {
        try await withTestApp { t in
            let a = try await t.emailUser()
            let b = try await t.emailUser()
            #expect(t.app.currentUser === b)
            t.app.switch(to: a)
            #expect(t.app.currentUser === a)
            #expect(t.restartedApp().currentUser?.id == a.id)
        }
    }

    @Test func anonymousUsersAreRemovedWhenTheyLogOut() async throws {
        try await withTestApp { t in
            let user = try await t.app.login(credentials: .anonymous)
            try await user.logOut()
            #expect(user.state == .removed && t.app.allUsers.isEmpty && t.app.currentUser == nil)
            let next = try await t.app.login(credentials: .anonymous)
            #expect(next.id != user.id)
        }
    }

    @Test func removeDeletesTheUsersFilesAndMetadata() async throws {
        try await withTestApp { t in
            let user = try await t.emailUser()
            let directory = user.syncDirectory
            #expect(directory.path == t.root.appendingPathComponent("\(t.server.appId)/\(user.id)").path)
            try Data("x".utf8).write(to: directory.appendingPathComponent("flx_sync_default.realm"))
            let refreshToken = try #require(user.refreshToken)
            try await user.remove()
            #expect(user.state == .removed && !user.isLoggedIn)
            #expect(!FileManager.default.fileExists(atPath: directory.path))
            #expect(t.app.allUsers.isEmpty)
            await #expect(throws: AuthError.self) { try await t.server.auth.refreshAccessToken(refreshToken: refreshToken) }
            #expect(t.restartedApp().allUsers.isEmpty)
            // The user still exists on the server: logging in again works.
            let again = try await t.app.login(credentials: .emailPassword(
                email: try #require(try await t.server.storage.user(appId: t.server.appId, id: user.id)?.identity),
                password: "password1"))
            #expect(again.id == user.id && again !== user)
            let twice = await appError { try await user.remove() }
            #expect(twice?.code == .userNotFound)
        }
    }

    @Test func customDataComesFromTheServerAndIsRefreshed() async throws {
        try await withTestApp { t in
            let user = try await t.emailUser()
            #expect(user.customData.isEmpty)
            var stored = try #require(try await t.server.storage.user(appId: t.server.appId, id: user.id))
            stored.customData = ["plan": .string("pro"), "seats": .int(3)]
            try await t.server.storage.updateUser(stored)
            let data = try await user.refreshCustomData()
            #expect(data["plan"] as? String == "pro" && data["seats"] as? Int64 == 3)
            #expect(user.customData == ["plan": "pro", "seats": 3])
            let restored = try #require(t.restartedApp().currentUser)
            #expect(restored.customData["plan"] == AnyBSON.string("pro"))
            let seats: Int64? = await withCheckedContinuation { continuation in
                user.refreshCustomData { result in continuation.resume(returning: (try? result.get())?["seats"] as? Int64) }
            }
            #expect(seats == 3)
        }
    }
}
