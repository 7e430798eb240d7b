import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    /// Checks of ``DocumentStorage``: client files, documents, queries, transactions, history, settings and change
    /// notifications.
    public static var documentStorageChecks: [Check] {
        clientFileChecks + documentChecks + queryChecks + transactionChecks + historyChecks + settingChecks
            + notificationChecks
    }

    static var clientFileChecks: [Check] {
        [
            .documentStorage("client files: distinct increasing idents with salts, per app") { storage in
                let app = appId()
                var files: [ClientFile] = []
                for i in 0..<3 { files.append(try await storage.allocateClientFile(appId: app, userId: "u\(i)")) }
                let concurrent = try await withThrowingTaskGroup(of: ClientFile.self) { group in
                    for i in 0..<10 { group.addTask { try await storage.allocateClientFile(appId: app, userId: "c\(i)") } }
                    return try await group.reduce(into: [ClientFile]()) { $0.append($1) }
                }
                let idents = files.map(\.ident)
                try Expect.that(idents == idents.sorted() && Set(idents).count == 3, "sequential idents increase: \(idents)")
                let all = (files + concurrent).map(\.ident)
                try Expect.equal(Set(all).count, 13, "distinct idents")
                try Expect.that(all.allSatisfy { $0 > 0 }, "idents are positive: \(all)")
                try Expect.that(concurrent.allSatisfy { $0.ident > idents.last! }, "later idents are higher")
                try Expect.that(files.allSatisfy { $0.salt != 0 }, "salts are set")
                try Expect.that(Set(files.map(\.salt)).count == 3, "salts are random")
                for file in files + concurrent {
                    try Expect.equal(try await storage.clientFile(appId: app, ident: file.ident), file, "client file")
                }
                try Expect.equal(try await storage.clientFile(appId: app, ident: 9_999), nil, "missing client file")
                let otherApp = appId()
                let other = try await storage.allocateClientFile(appId: otherApp, userId: "stranger")
                try Expect.equal(try await storage.clientFile(appId: otherApp, ident: other.ident), other, "other app's file")
                try Expect.that(
                    try await storage.clientFile(appId: app, ident: other.ident)?.userId != "stranger",
                    "another app's file is not visible in this app")
            },
        ]
    }

    static var settingChecks: [Check] {
        [
            .documentStorage("settings: missing, set, overwrite, per app") { storage in
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
            .documentStorage(
                "settings: updates are atomic, nil leaves the value, a failed update changes nothing"
            ) { storage in
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
        ]
    }

    static var notificationChecks: [Check] {
        [
            .documentStorage("notifications: every subscriber hears each commit that appended history") { storage in
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
