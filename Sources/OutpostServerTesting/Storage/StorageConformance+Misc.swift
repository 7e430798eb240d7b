import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    static var miscChecks: [Check] {
        [
            Check("settings: missing, set, overwrite, per app") { storage in
                let app = appId()
                try Expect.equal(try await storage.setting(appId: app, key: "schema"), nil, "missing setting")
                let value = Value.document(everyValueDocument(id: .int(1)))
                try await storage.setSetting(appId: app, key: "schema", value: value)
                try Expect.equal(try await storage.setting(appId: app, key: "schema"), value, "stored setting")
                try await storage.setSetting(appId: app, key: "schema", value: .string("v2"))
                try Expect.equal(try await storage.setting(appId: app, key: "schema"), .string("v2"), "overwritten")
                try await storage.setSetting(appId: app, key: hostileName, value: .int(7))
                try Expect.equal(try await storage.setting(appId: app, key: hostileName), .int(7), "hostile key")
                try Expect.equal(try await storage.setting(appId: appId(), key: "schema"), nil, "another app")
            },
            Check("settings: updates are atomic, nil leaves the value, a failed update changes nothing") { storage in
                let app = appId()
                // Concurrent read-modify-writes: none is lost.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            _ = try await storage.updateSetting(appId: app, key: "counter") { current in
                                guard case .int(let n)? = current else { return .int(1) }
                                return .int(n + 1)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                try Expect.equal(try await storage.setting(appId: app, key: "counter"), .int(20), "every increment kept")
                let unchanged = try await storage.updateSetting(appId: app, key: "counter") { _ in nil }
                try Expect.equal(unchanged, .int(20), "nil returns the current value")
                try Expect.equal(try await storage.updateSetting(appId: app, key: "absent") { _ in nil }, nil, "absent stays absent")
                try Expect.equal(try await storage.setting(appId: app, key: "absent"), nil, "nothing stored for nil")
                struct Refused: Error {}
                do {
                    _ = try await storage.updateSetting(appId: app, key: "counter") { _ in throw Refused() }
                    throw ConformanceFailure(message: "an update that throws must throw")
                } catch is Refused {}
                try Expect.equal(try await storage.setting(appId: app, key: "counter"), .int(20), "a failed update changes nothing")
                try Expect.equal(try await storage.updateSetting(appId: app, key: "counter") { _ in .string("v") }, .string("v"),
                                 "returns the new value")
                try Expect.equal(try await storage.setting(appId: appId(), key: "counter"), nil, "another app")
            },
            Check("logs: filtered by kind and time, newest limit records, oldest first") { storage in
                let app = appId()
                var records: [LogRecord] = []
                for i in 0..<10 {
                    let record = LogRecord(
                        appId: app, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 60 + 0.25),
                        kind: i.isMultiple(of: 2) ? "sync" : "auth", level: i == 9 ? "error" : "info",
                        message: "event \(i) \(hostileName)",
                        details: i == 4 ? .document(["rejected": .array([.int(1), .objectId(ObjectId.generate())])]) : nil)
                    records.append(record)
                }
                for record in records.reversed() { try await storage.appendLog(record) }
                try await storage.appendLog(LogRecord(appId: appId(), time: records[0].time, kind: "sync", level: "info", message: "other app"))
                try Expect.equal(
                    try await storage.logs(appId: app, kind: nil, since: nil, until: nil, limit: 100), records, "all logs")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: "sync", since: nil, until: nil, limit: 100),
                    records.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element), "sync logs")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: nil, since: records[3].time, until: records[6].time, limit: 100),
                    Array(records[3...6]), "time range, both ends inclusive")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: "auth", since: records[2].time, until: nil, limit: 2),
                    [records[7], records[9]], "kind, since and limit: the newest matches, oldest first")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: nil, since: nil, until: records[1].time, limit: 100),
                    Array(records[0...1]), "until")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: "admin", since: nil, until: nil, limit: 100), [], "no such kind")
                try Expect.equal(try await storage.logs(appId: app, kind: nil, since: nil, until: nil, limit: 0), [], "limit 0")
            },
            Check("logs: records from before a date are deleted, per app") { storage in
                let app = appId()
                let records = (0..<6).map { i in
                    LogRecord(appId: app, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 60 + 0.25),
                              kind: "sync", level: "info", message: "event \(i)")
                }
                for record in records { try await storage.appendLog(record) }
                let other = LogRecord(appId: appId(), time: records[0].time, kind: "sync", level: "info", message: "other app")
                try await storage.appendLog(other)
                try Expect.equal(try await storage.deleteLogs(appId: app, before: records[3].time), 3, "deleted count")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: nil, since: nil, until: nil, limit: 100), Array(records[3...]),
                    "the record at the date and later ones are kept")
                try Expect.equal(
                    try await storage.logs(appId: other.appId, kind: nil, since: nil, until: nil, limit: 100), [other],
                    "the other app's log")
                try Expect.equal(try await storage.deleteLogs(appId: app, before: records[3].time), 0, "nothing left to delete")
            },
            Check("notifications: every subscriber hears each commit that appended history") { storage in
                let app = appId()
                let first = try await storage.changeNotifications()
                let second = try await storage.changeNotifications()
                try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: "Item", ["_id": .int(1)])
                }
                try await storage.transaction(appId: app) { tx in
                    _ = try await tx.appendChangeset(draft(1))
                    _ = try await tx.appendChangeset(draft(2))
                }
                try await storage.transaction(appId: app) { tx in _ = try await tx.appendChangeset(draft(3)) }
                for stream in [first, second] {
                    let heard = try await collect(stream, app: app, until: 3)
                    try Expect.equal(heard.last, 3, "last version announced")
                    try Expect.that(heard.contains(2) && heard == heard.sorted(), "announced versions: \(heard)")
                }
            },
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

    /// The versions announced for `app` until `version` is heard; fails after 10 seconds.
    static func collect(_ stream: AsyncStream<ChangeNotification>, app: String, until version: Int64) async throws -> [Int64] {
        try await withThrowingTaskGroup(of: [Int64]?.self) { group in
            group.addTask {
                var heard: [Int64] = []
                for await note in stream where note.appId == app {
                    heard.append(note.serverVersion)
                    if note.serverVersion >= version { return heard }
                }
                return heard
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            guard let heard = first else {
                throw ConformanceFailure(message: "no notification of version \(version) within 10 s")
            }
            return heard
        }
    }
}
