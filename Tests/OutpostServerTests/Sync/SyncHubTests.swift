import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// The hub's memory of recent changesets (`SyncHub`).
@Suite struct SyncHubTests {
    /// Counts `changesets` reads and makes each one slow, so that concurrent callers overlap.
    final class CountingStorage: ForwardingStorage, @unchecked Sendable {
        let reads = Atomic<Int>(0)

        override func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
            reads.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(50))
            return try await base.changesets(appId: appId, after: after, upTo: upTo, limit: limit)
        }
    }

    private func commit(_ storage: any ServerStorage, note: String) async throws -> Int64 {
        try await storage.transaction(appId: "app") { tx in
            try await tx.appendChangeset(ServerChangesetDraft(changes: [DocumentChange(
                collection: "Item", primaryKey: .string(note), before: nil, after: ["_id": .string(note)],
                changedFields: ["_id"])]))
        }
    }

    /// A version announced before its changesets are in the hub's memory (another process's commit, or the
    /// storage's notification overtaking the session that records it) wakes every session at once: they read it
    /// from storage once, not once each.
    @Test func sessionsThatMissTogetherShareOneStorageRead() async throws {
        let storage = CountingStorage(MemoryStorage())
        try await storage.prepare()
        let version = try await commit(storage, note: "a")
        let hub = SyncHub(storage: storage)
        await hub.announce(ChangeNotification(appId: "app", serverVersion: version))

        let results = try await withThrowingTaskGroup(of: [ServerChangeset].self) { group in
            for _ in 0..<50 {
                group.addTask { try await hub.catchUp(appId: "app", after: 0, upTo: nil, limit: 100).changesets }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0.map(\.serverVersion) == [version] })
        #expect(storage.reads.load(ordering: .relaxed) == 1)

        // Remembered: the next session at the same place does not read storage.
        let again = try await hub.catchUp(appId: "app", after: 0, upTo: nil, limit: 100)
        #expect(again.changesets.map(\.serverVersion) == [version])
        #expect(storage.reads.load(ordering: .relaxed) == 1)

        // A different range is a read of its own.
        let second = try await commit(storage, note: "b")
        await hub.announce(ChangeNotification(appId: "app", serverVersion: second))
        let next = try await hub.catchUp(appId: "app", after: version, upTo: nil, limit: 100)
        #expect(next.changesets.map(\.serverVersion) == [second])
        #expect(storage.reads.load(ordering: .relaxed) == 2)
    }

    /// A failed read fails every session that waited for it, and the next attempt reads again.
    @Test func aFailedSharedReadIsRetriedByTheNextCaller() async throws {
        final class FailingOnce: ForwardingStorage, @unchecked Sendable {
            let failures = Atomic<Int>(1)
            let reads = Atomic<Int>(0)
            override func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
                reads.add(1, ordering: .relaxed)
                try await Task.sleep(for: .milliseconds(50))
                if failures.subtract(1, ordering: .relaxed).oldValue > 0 {
                    throw StorageError(.unavailable, "the database is away")
                }
                return try await base.changesets(appId: appId, after: after, upTo: upTo, limit: limit)
            }
        }
        let storage = FailingOnce(MemoryStorage())
        try await storage.prepare()
        let version = try await commit(storage, note: "a")
        let hub = SyncHub(storage: storage)
        await hub.announce(ChangeNotification(appId: "app", serverVersion: version))
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask { (try? await hub.catchUp(appId: "app", after: 0, upTo: nil, limit: 100)) != nil }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: false, count: 10))
        #expect(storage.reads.load(ordering: .relaxed) == 1)
        let retried = try await hub.catchUp(appId: "app", after: 0, upTo: nil, limit: 100)
        #expect(retried.changesets.map(\.serverVersion) == [version])
        #expect(storage.reads.load(ordering: .relaxed) == 2)
    }

    /// The hub keeps recent changesets by memory as well as by count: large transactions are not kept by the
    /// thousand, the newest one is kept even when it alone is over the limit, and what was let go is read from
    /// storage again.
    @Test func recentChangesetsAreBoundedByMemoryAndTheNewestIsKept() async throws {
        let storage = CountingStorage(MemoryStorage())
        try await storage.prepare()
        let limit = 200_000
        let hub = SyncHub(storage: storage, cacheBytes: limit)
        func changeset(_ version: Int64, documents: Int) -> ServerChangeset {
            ServerChangeset(serverVersion: version, draft: ServerChangesetDraft(changes: (0..<documents).map { i in
                let document: Document = ["_id": .int(Int64(i)), "text": .string(String(repeating: "x", count: 400))]
                return DocumentChange(collection: "Item", primaryKey: .int(Int64(i)), inserted: document,
                                      text: document.extendedJSONText)
            }))
        }
        // Twenty changesets of 50 documents (≈ 45 KB each by the hub's weight): far fewer than the count limit.
        for version in 1...20 as ClosedRange<Int64> {
            await hub.record(appId: "app", [changeset(version, documents: 50)])
            let (count, bytes) = await hub.cached(appId: "app")
            #expect(bytes <= limit || count == 1, "at \(version): \(count) changesets, \(bytes) bytes")
            #expect(bytes > 0)
        }
        let (count, bytes) = await hub.cached(appId: "app")
        #expect(count < 20 && count >= 2, "\(count) of 20 kept")
        #expect(bytes == (20 - count + 1...20).map { SyncHub.memoryWeight(of: changeset(Int64($0), documents: 50)) }.reduce(0, +),
                "the running total matches what is kept")
        // The newest changeset is kept even when it alone is over the limit.
        await hub.record(appId: "app", [changeset(21, documents: 1_000)])
        #expect(await hub.cached(appId: "app").changesets == 1)
        await hub.announce(ChangeNotification(appId: "app", serverVersion: 21))
        let newest = try await hub.catchUp(appId: "app", after: 20, upTo: nil, limit: 10)
        #expect(newest.changesets.map(\.serverVersion) == [21])
        #expect(storage.reads.load(ordering: .relaxed) == 0, "served from memory")
        // An older range is read from storage (this storage has none of them: the hub returns what it reads).
        _ = try await hub.catchUp(appId: "app", after: 5, upTo: 21, limit: 10)
        #expect(storage.reads.load(ordering: .relaxed) == 1, "let go, so read again")
    }
}
