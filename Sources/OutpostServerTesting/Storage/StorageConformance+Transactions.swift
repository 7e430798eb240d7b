import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    struct Boom: Error, Equatable {}

    static var transactionChecks: [Check] {
        [
            .documentStorage("transactions: commit documents, history and client progress together") { storage in
                let app = appId()
                try Expect.equal(try await storage.latestServerVersion(appId: app), 0, "version of a new app")
                let inside = try await storage.transaction(appId: app) { tx -> [Int64] in
                    let before = try await tx.latestServerVersion()
                    try await tx.putDocument(collection: "Item", ["_id": .int(1)])
                    let v1 = try await tx.appendChangeset(draft(1))
                    let v2 = try await tx.appendChangeset(draft(2))
                    let after = try await tx.latestServerVersion()
                    let progressBefore = try await tx.integratedClientVersion(fileIdent: 7)
                    try await tx.setIntegratedClientVersion(fileIdent: 7, 12)
                    let progressAfter = try await tx.integratedClientVersion(fileIdent: 7)
                    return [before, v1, v2, after, progressBefore, progressAfter]
                }
                try Expect.equal(inside, [0, 1, 2, 2, 0, 12], "versions and progress inside the transaction")
                try Expect.equal(try await storage.latestServerVersion(appId: app), 2, "latest version")
                let later = try await storage.transaction(appId: app) { tx -> [Int64] in
                    let progress = try await tx.integratedClientVersion(fileIdent: 7)
                    try await tx.setIntegratedClientVersion(fileIdent: 7, 13)
                    let other = try await tx.integratedClientVersion(fileIdent: 8)
                    return [try await tx.latestServerVersion(), progress, other, try await tx.appendChangeset(draft(3))]
                }
                try Expect.equal(later, [2, 12, 0, 3], "a later transaction sees the committed state")
                let progress = try await storage.transaction(appId: app) { tx in
                    try await tx.integratedClientVersion(fileIdent: 7)
                }
                try Expect.equal(progress, 13, "client progress overwritten")
                try Expect.equal(
                    try await storage.document(appId: app, collection: "Item", primaryKey: .int(1)), ["_id": .int(1)],
                    "committed document")
            },
            .documentStorage("transactions: a throwing body leaves nothing behind") { storage in
                let app = appId()
                try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: "Item", ["_id": .int(1), "v": .int(1)])
                    _ = try await tx.appendChangeset(draft(1))
                    try await tx.setIntegratedClientVersion(fileIdent: 3, 5)
                }
                do {
                    try await storage.transaction(appId: app) { tx in
                        try await tx.putDocument(collection: "Item", ["_id": .int(1), "v": .int(2)])
                        try await tx.putDocument(collection: "Item", ["_id": .int(2)])
                        try await tx.putDocument(collection: "New", ["_id": .int(1)])
                        try await tx.deleteDocument(collection: "Item", primaryKey: .int(1))
                        _ = try await tx.appendChangeset(draft(2))
                        _ = try await tx.appendChangeset(draft(3))
                        try await tx.setIntegratedClientVersion(fileIdent: 3, 9)
                        try await tx.setIntegratedClientVersion(fileIdent: 4, 9)
                        throw Boom()
                    }
                    throw ConformanceFailure(message: "the body's error was not rethrown")
                } catch is Boom {}
                try Expect.equal(try await storage.latestServerVersion(appId: app), 1, "no history appended")
                try Expect.equal(
                    try await storage.changesets(appId: app, after: 0, upTo: 100, limit: 100).map(\.serverVersion), [1],
                    "history")
                try Expect.equal(
                    try await storage.documents(appId: app, collection: "Item"), [["_id": .int(1), "v": .int(1)]],
                    "documents unchanged")
                try Expect.equal(try await storage.collections(appId: app), ["Item"], "no new collection")
                let progress = try await storage.transaction(appId: app) { tx in
                    [try await tx.integratedClientVersion(fileIdent: 3), try await tx.integratedClientVersion(fileIdent: 4)]
                }
                try Expect.equal(progress, [5, 0], "client progress unchanged")
                let next = try await storage.transaction(appId: app) { tx in try await tx.appendChangeset(draft(4)) }
                try Expect.equal(next, 2, "the next version follows the last committed one")
            },
            .documentStorage("transactions: 20 concurrent transactions get versions 1...20 without gaps") { storage in
                let app = appId()
                let versions = try await withThrowingTaskGroup(of: [Int64].self) { group in
                    for n in 1...20 {
                        group.addTask {
                            try await storage.transaction(appId: app) { tx -> [Int64] in
                                let seen = try await tx.latestServerVersion()
                                // An await on another storage read inside the body must not deadlock.
                                _ = try await storage.latestServerVersion(appId: app)
                                let doc = try await tx.documents(collection: "Counter", primaryKeys: [.int(1)])[.int(1)]
                                let count: Int64 = if case .int(let c)? = doc?["count"] { c } else { 0 }
                                try await tx.putDocument(collection: "Counter", ["_id": .int(1), "count": .int(count + 1)])
                                let version = try await tx.appendChangeset(draft(Int64(n)))
                                return [seen, version]
                            }
                        }
                    }
                    return try await group.reduce(into: [[Int64]]()) { $0.append($1) }
                }
                try Expect.equal(versions.map { $0[1] }.sorted(), Array(1...20), "assigned versions")
                try Expect.that(versions.allSatisfy { $0[0] + 1 == $0[1] }, "each saw the version before its own")
                try Expect.equal(
                    try await storage.changesets(appId: app, after: 0, upTo: 20, limit: 100).map(\.serverVersion),
                    Array(1...20), "history")
                try Expect.equal(
                    try await storage.document(appId: app, collection: "Counter", primaryKey: .int(1))?["count"],
                    .int(20), "no lost update")
            },
            .documentStorage("transactions: different apps do not wait for each other's versions") { storage in
                let (a, b) = (appId("a"), appId("b"))
                let versions = try await withThrowingTaskGroup(of: (String, Int64).self) { group in
                    for i in 0..<10 {
                        let app = i.isMultiple(of: 2) ? a : b
                        group.addTask { (app, try await storage.transaction(appId: app) { try await $0.appendChangeset(draft(1)) }) }
                    }
                    return try await group.reduce(into: [String: [Int64]]()) { $0[$1.0, default: []].append($1.1) }
                }
                try Expect.equal(versions[a]?.sorted(), [1, 2, 3, 4, 5], "versions of app a")
                try Expect.equal(versions[b]?.sorted(), [1, 2, 3, 4, 5], "versions of app b")
            },
        ]
    }

    static var historyChecks: [Check] {
        [
            .documentStorage("history: changesets(after:upTo:limit:) pages in version order") { storage in
                let app = appId()
                for n in 1...25 {
                    let v = try await storage.transaction(appId: app) { tx in
                        try await tx.appendChangeset(draft(Int64(n), audience: n == 7 ? 42 : nil))
                    }
                    try Expect.equal(v, Int64(n), "version \(n)")
                }
                let page1 = try await storage.changesets(appId: app, after: 0, upTo: 25, limit: 10)
                try Expect.equal(page1.map(\.serverVersion), Array(1...10), "first page")
                try Expect.equal(page1[6].draft, draft(7, audience: 42), "changeset content")
                try Expect.equal(page1[0], ServerChangeset(serverVersion: 1, draft: draft(1)), "changeset 1")
                let page2 = try await storage.changesets(appId: app, after: 10, upTo: 25, limit: 10)
                try Expect.equal(page2.map(\.serverVersion), Array(11...20), "second page")
                let page3 = try await storage.changesets(appId: app, after: 20, upTo: 25, limit: 10)
                try Expect.equal(page3.map(\.serverVersion), Array(21...25), "last page")
                try Expect.equal(
                    try await storage.changesets(appId: app, after: 25, upTo: 100, limit: 10), [], "after the end")
                try Expect.equal(
                    try await storage.changesets(appId: app, after: 3, upTo: 6, limit: 100).map(\.serverVersion),
                    [4, 5, 6], "upTo is inclusive, after exclusive")
                try Expect.equal(try await storage.changesets(appId: app, after: 0, upTo: 25, limit: 0), [], "limit 0")
                try Expect.equal(
                    try await storage.changesets(appId: appId(), after: 0, upTo: 25, limit: 10), [], "another app")
            },
        ]
    }
}
