import Foundation
import OutpostCore
import OutpostServerTesting
import Testing

@testable import OutpostServer

/// Downloads shared between sessions with equal views: shared only where the views really are equal, and bounded.
@Suite struct DownloadCacheTests {
    static let other = AuthenticatedUser(appId: "seed-app", userId: "7413800c6852d9220b2e2bb1")

    /// Two sessions of one user share the encoded change; a session of another user, whose role filter hides the
    /// document, does not receive it through the cache.
    @Test(arguments: Driver.enabled)
    func equalViewsShareDownloadsOtherUsersDoNot(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withEngine(storage: storage, settings: [try seedSettings()]) { engine in
                let writer = InMemorySyncConnection(handler: engine, user: SeedScenarioTests.user)
                let mine = InMemorySyncConnection(handler: engine, user: SeedScenarioTests.user)
                let theirs = InMemorySyncConnection(handler: engine, user: Self.other)
                for client in [writer, mine, theirs] {
                    _ = try await client.bindNewFile()
                    _ = try await client.subscribe(version: 1, ["Item": "complexity <= 4"])
                }
                let before = engine.downloads.count
                let pk = Value.objectId(.generate())
                try await writer.upload(clientVersion: 1, [.create(className: "Item", primaryKey: pk, fields: OwnChangeEchoTests.item("x"))])
                let received = try await mine.next { message in
                    guard case .download(let download) = message else { return false }
                    return !download.changesets.isEmpty
                }
                guard case .download(let download) = received else { return }
                #expect(download.changesets.flatMap(\.instructions).map(\.primaryKey) == [pk])

                // The other user's session moves past the version without the document.
                try await theirs.upload(clientVersion: 1, [])
                let ack = try await theirs.next { if case .download(let d) = $0 { d.uploadAck == 1 } else { false } }
                guard case .download(let theirDownload) = ack else { return }
                #expect(theirDownload.cursor.serverVersion >= 1)
                #expect(theirDownload.changesets.isEmpty)
                // One entry for the reader's view (the writer's own create is held back), one for the other user.
                #expect(engine.downloads.count - before == 2)
                for client in [writer, mine, theirs] { await client.close() }
            }
        }
    }

    @Test func viewKeysDifferByUserQueriesAndRules() throws {
        let settings = try seedSettings()
        let query = try QueryParser.parsePredicate("complexity <= 4")
        let a = DownloadViewKey(settings: settings, context: RuleContext(userId: "a"), queries: ["Item": query])
        #expect(a == DownloadViewKey(settings: settings, context: RuleContext(userId: "a"), queries: ["Item": query]))
        #expect(a != DownloadViewKey(settings: settings, context: RuleContext(userId: "b"), queries: ["Item": query]))
        #expect(a != DownloadViewKey(settings: settings, context: RuleContext(userId: "a"), queries: [:]))
        var other = settings
        other.rules = RuleSet()
        #expect(a != DownloadViewKey(settings: other, context: RuleContext(userId: "a"), queries: ["Item": query]))
    }

    @Test func theCacheStaysWithinItsBounds() {
        let cache = DownloadCache(maxEntries: 8, maxBytes: 100, maxEntryBytes: 40)
        let key = DownloadViewKey(settings: SyncAppSettings(appId: "a", rules: RuleSet()), context: RuleContext(), queries: [:])
        var made = 0
        for version in 1...20 {
            _ = cache.entry(serverVersion: Int64(version), view: key) {
                made += 1
                return DownloadCache.Entry(json: Array(repeating: 0x20, count: 30), instructionCount: 1)
            }
        }
        #expect(made == 20)
        #expect(cache.count <= 8)
        // A hit does not recompute; an oversized entry is not kept.
        _ = cache.entry(serverVersion: 20, view: key) { made += 1; return DownloadCache.Entry(json: nil, instructionCount: 0) }
        #expect(made == 20)
        _ = cache.entry(serverVersion: 21, view: key) { DownloadCache.Entry(json: Array(repeating: 0x20, count: 41), instructionCount: 1) }
        var remade = false
        _ = cache.entry(serverVersion: 21, view: key) { remade = true; return DownloadCache.Entry(json: nil, instructionCount: 0) }
        #expect(remade)
    }
}
