import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    /// Checks that span the three protocols of ``ServerStorage``: names stored verbatim in every table, apps
    /// isolated from each other in every table.
    public static var serverStorageChecks: [Check] {
        [
            Check("names with quotes, semicolons and unicode are stored verbatim") { storage in
                let app = hostileName + UUID().uuidString
                let evil = user(app, id: hostileName, identity: hostileName, provider: hostileName)
                try await storage.insertUser(evil)
                try Expect.equal(try await storage.user(appId: app, id: hostileName), evil, "user")
                try Expect.equal(
                    try await storage.user(appId: app, provider: hostileName, identity: hostileName), evil, "user by identity")
                try await storage.insertSession(StoredSession(appId: app, id: hostileName, userId: hostileName, expiresAt: date(1)))
                try Expect.equal(try await storage.session(appId: app, id: hostileName)?.userId, hostileName, "session")
                try await storage.insertAPIKey(StoredAPIKey(appId: app, id: hostileName, userId: hostileName, name: hostileName, keyHash: hostileName))
                try Expect.equal(try await storage.apiKeys(appId: app, userId: hostileName).map(\.name), [hostileName], "key")
                let file = try await storage.allocateClientFile(appId: app, userId: hostileName)
                try Expect.equal(try await storage.clientFile(appId: app, ident: file.ident)?.userId, hostileName, "client file")
                let document: Document = ["_id": .string(hostileName), hostileName: .string(hostileName)]
                let version = try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: hostileName, document)
                    try await tx.setIntegratedClientVersion(fileIdent: file.ident, 1)
                    return try await tx.appendChangeset(draft(1, collection: hostileName))
                }
                try Expect.equal(
                    try await storage.document(appId: app, collection: hostileName, primaryKey: .string(hostileName)), document,
                    "document")
                try Expect.equal(try await storage.collections(appId: app), [hostileName], "collection")
                try Expect.equal(try await storage.latestServerVersion(appId: app), version, "version")
                try Expect.equal(
                    try await storage.changesets(appId: app, after: 0, upTo: 1, limit: 1).first?.draft,
                    draft(1, collection: hostileName), "changeset")
                try await storage.appendLog(LogRecord(appId: app, time: date(5), kind: hostileName, level: "info", message: hostileName))
                try Expect.equal(
                    try await storage.logs(appId: app, kind: hostileName, since: nil, until: nil, limit: 5).map(\.message),
                    [hostileName], "log")
                // Every table still works.
                try Expect.equal(try await storage.users(appId: app).count, 1, "users table intact")
                try Expect.equal(try await storage.deleteUser(appId: app, id: hostileName), true, "delete")
            },
            Check("apps are isolated from each other") { storage in
                let (a, b) = (appId("a"), appId("b"))
                for app in [a, b] {
                    try await storage.insertUser(user(app, id: "u1", identity: "same@x"))
                    try await storage.insertSession(StoredSession(appId: app, id: "s1", userId: "u1", expiresAt: date(1)))
                    try await storage.insertAPIKey(StoredAPIKey(appId: app, id: "k1", userId: "u1", name: app, keyHash: "h"))
                    try await storage.setSetting(appId: app, key: "k", value: .string(app))
                    try await storage.appendLog(LogRecord(appId: app, time: date(1), kind: "sync", level: "info", message: app))
                }
                try await storage.transaction(appId: a) { tx in
                    try await tx.putDocument(collection: "Item", ["_id": .int(1), "app": .string("a")])
                    _ = try await tx.appendChangeset(draft(1))
                    _ = try await tx.appendChangeset(draft(2))
                    try await tx.setIntegratedClientVersion(fileIdent: 1, 10)
                }
                let bView = try await storage.transaction(appId: b) { tx -> [Int64] in
                    let seen = try await tx.documents(collection: "Item", primaryKeys: [.int(1)]).count
                    return [try await tx.latestServerVersion(), Int64(seen), try await tx.integratedClientVersion(fileIdent: 1),
                            try await tx.appendChangeset(draft(1))]
                }
                try Expect.equal(bView, [0, 0, 0, 1], "app b's transaction sees none of app a's data")
                try Expect.equal(try await storage.collections(appId: b), [], "b's collections")
                try Expect.equal(try await storage.document(appId: b, collection: "Item", primaryKey: .int(1)), nil, "b's document")
                try Expect.equal(try await storage.latestServerVersion(appId: a), 2, "a's version")
                try Expect.equal(try await storage.setting(appId: b, key: "k"), .string(b), "b's setting")
                try Expect.equal(try await storage.apiKey(appId: b, id: "k1")?.name, b, "b's key")
                try Expect.equal(
                    try await storage.logs(appId: b, kind: nil, since: nil, until: nil, limit: 10).map(\.message), [b], "b's log")
                try Expect.equal(try await storage.deleteUser(appId: a, id: "u1"), true, "delete a's user")
                try Expect.that(try await storage.user(appId: b, id: "u1") != nil, "b's user survives")
                try Expect.that(try await storage.session(appId: b, id: "s1") != nil, "b's session survives")
            },
        ]
    }
}
