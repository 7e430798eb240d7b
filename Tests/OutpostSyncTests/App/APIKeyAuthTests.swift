import Foundation
import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// `user.apiKeysAuth` and `user.profile` against a real server on loopback.
@Suite struct APIKeyAuthTests {
    @Test func aUserManagesTheirKeysAndAKeyLogsInUntilDisabledOrDeleted() async throws {
        try await withTestApp { t in
            let owner = try await t.emailUser()
            let keys = owner.apiKeysAuth
            let created = try await keys.createAPIKey(named: "ci")
            let secret = try #require(created.key)
            #expect(created.name == "ci" && !created.disabled && secret.hasPrefix(created.objectId.stringValue))
            let second = try await keys.createAPIKey(named: "laptop")
            // Listing and fetching never show the secret again.
            let listed = try await keys.fetchAPIKeys()
            #expect(listed.map(\.name) == ["ci", "laptop"] && listed.allSatisfy { $0.key == nil })
            let fetched = try await keys.fetchAPIKey(created.objectId)
            #expect(fetched.objectId == created.objectId && fetched.key == nil && !fetched.disabled)

            try await owner.logOut()
            #expect(try await t.app.login(credentials: .userAPIKey(secret)) === owner)
            try await keys.disableAPIKey(created.objectId)
            #expect(try await keys.fetchAPIKey(created.objectId).disabled)
            let refused = await appError { try await t.app.login(credentials: .userAPIKey(secret)) }
            #expect(refused?.httpStatusCode == 401)
            try await keys.enableAPIKey(created.objectId)
            #expect(try await t.app.login(credentials: .userAPIKey(secret)) === owner)

            try await keys.deleteAPIKey(created.objectId)
            let gone = await appError { try await keys.fetchAPIKey(created.objectId) }
            #expect(gone?.httpStatusCode == 404)
            #expect(try await keys.fetchAPIKeys().map(\.objectId) == [second.objectId])
            #expect(await appError { try await t.app.login(credentials: .userAPIKey(secret)) }?.httpStatusCode == 401)
        }
    }

    /// Another user can neither see, enable, disable nor delete the owner's key: each is a 404, as for a key that
    /// does not exist.
    @Test func anotherUserCannotTouchTheKeys() async throws {
        try await withTestApp { t in
            let owner = try await t.emailUser()
            let key = try await owner.apiKeysAuth.createAPIKey(named: "mine")
            let other = try await t.emailUser()
            let keys = other.apiKeysAuth
            #expect(try await keys.fetchAPIKeys().isEmpty)
            for attempt in [
                { _ = try await keys.fetchAPIKey(key.objectId) },
                { try await keys.disableAPIKey(key.objectId) },
                { try await keys.enableAPIKey(key.objectId) },
                { try await keys.deleteAPIKey(key.objectId) },
            ] as [@Sendable () async throws -> Void] {
                #expect(await appError { try await attempt() }?.httpStatusCode == 404)
            }
            let stillThere = try #require(try await t.server.storage.apiKey(appId: t.server.appId, id: key.objectId.stringValue))
            #expect(!stillThere.disabled && stillThere.userId == owner.id)
            // An empty name is refused with the server's message.
            let empty = await appError { try await keys.createAPIKey(named: "") }
            #expect(empty?.httpStatusCode == 400 && empty?.message == "field 'name' must not be empty")
        }
    }

    @Test func completionHandlersDeliverTheSameAnswers() async throws {
        try await withTestApp { t in
            let keys = try await t.emailUser().apiKeysAuth
            let created: UserAPIKey = try await withCheckedThrowingContinuation { continuation in
                keys.createAPIKey(named: "cb") { (key: UserAPIKey?, error: Error?) in
                    if let key { continuation.resume(returning: key) } else { continuation.resume(throwing: error!) }
                }
            }
            let listed: [UserAPIKey] = try await withCheckedThrowingContinuation { continuation in
                keys.fetchAPIKeys { (result: Result<[UserAPIKey], Error>) in continuation.resume(with: result) }
            }
            #expect(listed.map(\.objectId) == [created.objectId])
            let disabled: Error? = await withCheckedContinuation { continuation in
                keys.disableAPIKey(created.objectId) { continuation.resume(returning: $0) }
            }
            #expect(disabled == nil)
            let fetched: UserAPIKey = try await withCheckedThrowingContinuation { continuation in
                keys.fetchAPIKey(created.objectId) { (result: Result<UserAPIKey, Error>) in continuation.resume(with: result) }
            }
            #expect(fetched.disabled)
        }
    }

    @Test func theProfileHasTheProvidersDataAndSurvivesARestart() async throws {
        try await withTestApp { t in
            let user = try await t.emailUser("ada@example.com")
            #expect(user.profile.email == "ada@example.com")
            #expect(user.profile.metadata["email"] == .string("ada@example.com"))
            #expect(user.profile.name == nil && user.profile.pictureURL == nil)
            let anonymous = try await t.app.login(credentials: .anonymous)
            #expect(anonymous.profile.email == nil)
            let restarted = t.restartedApp()
            let again = try #require(restarted.allUsers[user.id])
            #expect(again.profile.email == "ada@example.com")
        }
    }
}
