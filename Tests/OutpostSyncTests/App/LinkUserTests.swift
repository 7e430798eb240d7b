import Foundation
import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// `user.linkUser(credentials:)`, `user.identities` and `app.switch(to:)` against a real server on loopback.
@Suite struct LinkUserTests {
    /// An anonymous user links email/password credentials: the same `User` comes back with both identities and is
    /// the current user; after logging out, logging in with the email is logging in as that user.
    @Test func anAnonymousUserLinksAnEmailAndKeepsItsId() async throws {
        try await withTestApp { t in
            let anonymous = try await t.app.login(credentials: .anonymous)
            #expect(anonymous.identities.map(\.providerType) == ["anon-user"])
            let other = try await t.emailUser()
            #expect(t.app.currentUser === other)
            try await t.app.emailPasswordAuth.registerUser(email: "ada@example.com", password: "password1")
            let linked = try await anonymous.linkUser(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            #expect(linked === anonymous)
            #expect(t.app.currentUser === anonymous, "linking makes the user current, as in Realm")
            #expect(anonymous.identities == [
                UserIdentity(userIdentityWithProviderType: "anon-user", identifier: anonymous.id),
                UserIdentity(userIdentityWithProviderType: "local-userpass", identifier: "ada@example.com"),
            ])
            #expect(anonymous.isLoggedIn)
            // The new access token works (the refresh token is the old one).
            #expect(try await anonymous.refreshCustomData().isEmpty)
            // A user's identities are kept with the user on the device.
            let reopened = t.restartedApp()
            #expect(reopened.allUsers[anonymous.id]?.identities.count == 2)
            let again = try await t.app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            #expect(again.id == anonymous.id)
            // No longer anonymous: an anonymous login makes a new user instead of returning this one (as Realm).
            let newAnonymous = try await t.app.login(credentials: .anonymous)
            #expect(newAnonymous.id != anonymous.id)
            // ...and logging it out keeps it on the device (an anonymous user is removed).
            try await anonymous.logOut()
            #expect(anonymous.state == .loggedOut && t.app.allUsers[anonymous.id] != nil)
        }
    }

    /// The original's checks before any request, and the server's refusals, as `AppError`s with their texts.
    @Test func refusedLinksSayWhy() async throws {
        try await withTestApp { t in
            let victim = try await t.emailUser("victim@example.com")
            let attacker = try await t.app.login(credentials: .anonymous)

            let taken = await appError {
                try await attacker.linkUser(credentials: .emailPassword(email: "victim@example.com", password: "password1"))
            }
            #expect(taken?.code == .invalidSession && taken?.httpStatusCode == 401)
            #expect(taken?.localizedDescription == "a user already exists with the specified provider")
            let wrong = await appError {
                try await attacker.linkUser(credentials: .emailPassword(email: "victim@example.com", password: "nope-nope"))
            }
            #expect(wrong?.code == .invalidPassword)
            #expect(attacker.identities.count == 1)

            let anonymous = await appError { try await victim.linkUser(credentials: .anonymous) }
            #expect(anonymous?.code == .unknown)
            #expect(anonymous?.localizedDescription == "Cannot add anonymous credentials to an existing user.")

            try await t.app.emailPasswordAuth.registerUser(email: "second@example.com", password: "password1")
            let second = await appError {
                try await victim.linkUser(credentials: .emailPassword(email: "second@example.com", password: "password1"))
            }
            #expect(second?.httpStatusCode == 400 && second?.code == .badRequest)
            #expect(second?.localizedDescription == "linking a local-userpass identity is not allowed when one is already linked")

            try await victim.logOut()
            let loggedOut = await appError {
                try await victim.linkUser(credentials: .emailPassword(email: "second@example.com", password: "password1"))
            }
            #expect(loggedOut?.localizedDescription == "The specified user is not logged in.")
        }
    }

    /// The completion-handler form delivers the user.
    @Test func theCompletionFormDeliversTheUser() async throws {
        try await withTestApp { t in
            let anonymous = try await t.app.login(credentials: .anonymous)
            try await t.app.emailPasswordAuth.registerUser(email: "cb@example.com", password: "password1")
            let result: Result<User, Error> = await withCheckedContinuation { continuation in
                anonymous.linkUser(credentials: .emailPassword(email: "cb@example.com", password: "password1")) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(try result.get() === anonymous)
            #expect(anonymous.identities.count == 2)
        }
    }

    /// From the main actor, as an app's sign-up screen calls it: the call keeps the caller's isolation.
    @Test func linkingFromTheMainActor() async throws {
        try await withTestApp { t in
            let anonymous = try await t.app.login(credentials: .anonymous)
            try await t.app.emailPasswordAuth.registerUser(email: "main@example.com", password: "password1")
            let count = try await Self.linkOnTheMainActor(anonymous, email: "main@example.com")
            #expect(count == 2)
        }
    }

    @MainActor static func linkOnTheMainActor(_ user: User, email: String) async throws -> Int {
        let linked = try await user.linkUser(credentials: .emailPassword(email: email, password: "password1"))
        MainActor.assertIsolated()
        return linked.identities.count
    }
}
