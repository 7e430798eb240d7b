import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    /// Checks of ``AccountStorage``: users (duplicates, `notFound`, the cascade on delete), sessions (expiry), API
    /// keys.
    public static var accountStorageChecks: [Check] {
        [
            .accountStorage("users: insert and read back by id and by provider identity") { storage in
                let app = appId()
                let ann = user(app, id: "u1", identity: "ann@example.com")
                let bob = user(app, id: "u2", identity: "bob@example.com", provider: "anon-user")
                try await storage.insertUser(bob)
                try await storage.insertUser(ann)
                try Expect.equal(try await storage.user(appId: app, id: "u1"), ann, "user by id")
                try Expect.equal(
                    try await storage.user(appId: app, provider: "anon-user", identity: "bob@example.com"), bob,
                    "user by provider identity")
                try Expect.equal(
                    try await storage.user(appId: app, provider: "anon-user", identity: "ann@example.com"), nil,
                    "user of another provider")
                try Expect.equal(try await storage.user(appId: app, id: "nobody"), nil, "missing user")
                try Expect.equal(try await storage.users(appId: app), [ann, bob], "users in id order")
            },
            .accountStorage("users: duplicate id or provider identity throws .duplicate") { storage in
                let app = appId()
                try await storage.insertUser(user(app, id: "u1", identity: "a@x"))
                try await Expect.throwsStorageError(.duplicate, "same id") {
                    try await storage.insertUser(user(app, id: "u1", identity: "other@x"))
                }
                try await Expect.throwsStorageError(.duplicate, "same provider and identity") {
                    try await storage.insertUser(user(app, id: "u2", identity: "a@x"))
                }
                try await storage.insertUser(user(app, id: "u3", identity: "a@x", provider: "api-key"))
                try await storage.insertUser(user(appId(), id: "u1", identity: "a@x"))
                try Expect.equal(try await storage.users(appId: app).map(\.id), ["u1", "u3"], "users after duplicates")
            },
            .accountStorage("users: update replaces, missing user throws .notFound") { storage in
                let app = appId()
                var ann = user(app, id: "u1", identity: "ann@x")
                try await storage.insertUser(ann)
                try await storage.insertUser(user(app, id: "u2", identity: "bob@x"))
                ann.confirmed = true
                ann.confirmationToken = nil
                ann.identity = "ann@new"
                ann.customData = ["plan": .string("pro"), "limit": .int(5)]
                ann.disabled = true
                try await storage.updateUser(ann)
                try Expect.equal(try await storage.user(appId: app, id: "u1"), ann, "updated user")
                try Expect.equal(
                    try await storage.user(appId: app, provider: ann.provider, identity: "ann@new"), ann,
                    "updated user by its new identity")
                try Expect.equal(
                    try await storage.user(appId: app, provider: ann.provider, identity: "ann@x"), nil,
                    "old identity is gone")
                try await Expect.throwsStorageError(.notFound, "update of a missing user") {
                    try await storage.updateUser(user(app, id: "ghost", identity: "ghost@x"))
                }
                try await Expect.throwsStorageError(.notFound, "update of a user of another app") {
                    try await storage.updateUser(user(appId(), id: "u1", identity: "ann@x"))
                }
                var clash = ann
                clash.identity = "bob@x"
                try await Expect.throwsStorageError(.duplicate, "update to another user's identity") {
                    try await storage.updateUser(clash)
                }
            },
            .accountStorage("users: delete cascades to sessions and API keys") { storage in
                let app = appId()
                try await storage.insertUser(user(app, id: "u1", identity: "a@x"))
                try await storage.insertUser(user(app, id: "u2", identity: "b@x"))
                for (id, owner) in [("s1", "u1"), ("s2", "u1"), ("s3", "u2")] {
                    try await storage.insertSession(StoredSession(appId: app, id: id, userId: owner, expiresAt: date(2_000_000_000_000)))
                }
                for (id, owner) in [("k1", "u1"), ("k2", "u1"), ("k3", "u2")] {
                    try await storage.insertAPIKey(StoredAPIKey(appId: app, id: id, userId: owner, name: id, keyHash: "h"))
                }
                try Expect.equal(try await storage.deleteUser(appId: app, id: "u1"), true, "deleting an existing user")
                try Expect.equal(try await storage.deleteUser(appId: app, id: "u1"), false, "deleting it again")
                try Expect.equal(try await storage.user(appId: app, id: "u1"), nil, "deleted user")
                try Expect.equal(try await storage.session(appId: app, id: "s1"), nil, "session of the deleted user")
                try Expect.equal(try await storage.session(appId: app, id: "s2"), nil, "session of the deleted user")
                try Expect.equal(try await storage.apiKeys(appId: app, userId: "u1"), [], "keys of the deleted user")
                try Expect.equal(try await storage.apiKey(appId: app, id: "k2"), nil, "key of the deleted user")
                try Expect.that(try await storage.session(appId: app, id: "s3") != nil, "another user's session survives")
                try Expect.equal(try await storage.apiKeys(appId: app, userId: "u2").map(\.id), ["k3"], "other keys")
            },
            .accountStorage("sessions: insert, read, delete; duplicate id throws .duplicate") { storage in
                let app = appId()
                let session = StoredSession(
                    appId: app, id: "refresh-1", userId: "u1", createdAt: Date(timeIntervalSince1970: 1_700_000_000.25),
                    expiresAt: Date(timeIntervalSince1970: 1_800_000_000.75))
                try await storage.insertSession(session)
                try Expect.equal(try await storage.session(appId: app, id: "refresh-1"), session, "session")
                try Expect.equal(try await storage.session(appId: appId(), id: "refresh-1"), nil, "session of another app")
                try await Expect.throwsStorageError(.duplicate, "same session id") {
                    try await storage.insertSession(session)
                }
                try Expect.equal(try await storage.deleteSession(appId: app, id: "refresh-1"), true, "delete")
                try Expect.equal(try await storage.deleteSession(appId: app, id: "refresh-1"), false, "delete again")
                try Expect.equal(try await storage.session(appId: app, id: "refresh-1"), nil, "deleted session")
            },
            .accountStorage("sessions: those expired before a date are deleted, per app") { storage in
                let app = appId()
                let now = Date(timeIntervalSince1970: 1_800_000_000.5)
                let expired: [String: Double] = ["e1": -86_400, "e2": -0.25]
                let valid: [String: Double] = ["v1": 0, "v2": 0.25, "v3": 86_400 * 60]
                for (id, offset) in expired.merging(valid, uniquingKeysWith: { a, _ in a }) {
                    try await storage.insertSession(StoredSession(
                        appId: app, id: id, userId: "u1", createdAt: now.addingTimeInterval(-1_000), expiresAt: now.addingTimeInterval(offset)))
                }
                let other = appId()
                try await storage.insertSession(StoredSession(appId: other, id: "e1", userId: "u1", expiresAt: now.addingTimeInterval(-60)))
                try Expect.equal(try await storage.deleteExpiredSessions(appId: app, before: now), 2, "deleted count")
                for id in expired.keys { try Expect.equal(try await storage.session(appId: app, id: id), nil, "expired \(id)") }
                for id in valid.keys { try Expect.that(try await storage.session(appId: app, id: id) != nil, "valid \(id) kept") }
                try Expect.that(try await storage.session(appId: other, id: "e1") != nil, "the other app's session kept")
                try Expect.equal(try await storage.deleteExpiredSessions(appId: app, before: now), 0, "nothing left to delete")
            },
            .accountStorage("API keys: insert, list by user, read, update, delete") { storage in
                let app = appId()
                let keys = [
                    StoredAPIKey(appId: app, id: "k2", userId: "u1", name: "ci", keyHash: "h2", createdAt: date(1_700_000_000_002)),
                    StoredAPIKey(appId: app, id: "k1", userId: "u1", name: "laptop", keyHash: "h1", disabled: true),
                    StoredAPIKey(appId: app, id: "k3", userId: "u2", name: "other", keyHash: "h3"),
                ]
                for key in keys { try await storage.insertAPIKey(key) }
                try Expect.equal(try await storage.apiKeys(appId: app, userId: "u1"), [keys[1], keys[0]], "u1's keys")
                try Expect.equal(try await storage.apiKey(appId: app, id: "k3"), keys[2], "key by id")
                try await Expect.throwsStorageError(.duplicate, "same key id") { try await storage.insertAPIKey(keys[0]) }
                try Expect.equal(try await storage.deleteAPIKey(appId: app, id: "k2"), true, "delete")
                try Expect.equal(try await storage.deleteAPIKey(appId: app, id: "k2"), false, "delete again")
                try Expect.equal(try await storage.apiKeys(appId: app, userId: "u1").map(\.id), ["k1"], "keys after delete")
                try Expect.equal(try await storage.apiKeys(appId: app, userId: "nobody"), [], "keys of nobody")
                var enabled = keys[1]
                enabled.disabled = false
                try Expect.equal(try await storage.updateAPIKey(enabled), true, "update")
                try Expect.equal(try await storage.apiKey(appId: app, id: "k1"), enabled, "updated key")
                try Expect.equal(try await storage.updateAPIKey(keys[0]), false, "update of a deleted key")
                try Expect.equal(try await storage.apiKey(appId: app, id: "k2"), nil, "a deleted key stays deleted")
                var elsewhere = keys[2]
                elsewhere.appId = appId()
                try Expect.equal(try await storage.updateAPIKey(elsewhere), false, "update in another app")
            },
        ]
    }
}
