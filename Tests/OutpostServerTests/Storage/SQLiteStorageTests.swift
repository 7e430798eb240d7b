import Foundation
import GRDB
@testable import OutpostServer
import OutpostServerTesting
import Testing

/// The storage conformance suite against ``SQLiteStorage``, one test per check, each on a new database file.
@Suite struct SQLiteStorageTests {
    @Test(arguments: StorageConformance.checks)
    func conformance(_ check: StorageConformance.Check) async throws {
        try await TemporaryDirectory.with("sqlite") { directory in
            try await check.run { try SQLiteStorage(path: directory.path("server.sqlite")) }
        }
    }

    /// Keys after the collection's largest stored key are not looked up (new objects with growing keys): keys
    /// before, between and at the stored ones are still found, in any collection, and nothing is found in an empty
    /// one.
    @Test func documentLookupsSkipOnlyKeysAfterTheLargest() async throws {
        try await TemporaryDirectory.with("largest") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            try await storage.transaction(appId: "app") { tx in
                for pk in ["b", "d", "f", "é"] { try await tx.putDocument(collection: "Item", ["_id": .string(pk)]) }
                try await tx.putDocument(collection: "Other", ["_id": .string("zz")])
                _ = try await tx.appendChangeset(ServerChangesetDraft(changes: []))
            }
            let keys = ["a", "b", "c", "d", "f", "g", "z", "é", "ê"].map { PrimaryKeyText.make(.string($0)) }
            let found = try await storage.documents(appId: "app", collection: "Item", keys: keys)
            #expect(Set(found.keys) == Set(["b", "d", "f", "é"].map { PrimaryKeyText.make(.string($0)) }))
            #expect(found[PrimaryKeyText.make(.string("é"))] == ["_id": .string("é")])
            #expect(try await storage.documents(appId: "app", collection: "Empty", keys: keys).isEmpty)
            #expect(try await storage.documents(appId: "other-app", collection: "Item", keys: keys).isEmpty)
            try await storage.close()
        }
    }

    /// The order of `sortsAfter` is SQLite's `BINARY` order of the UTF-8 bytes (not `String`'s, which finds a
    /// decomposed "é" equal to the composed one).
    @Test func sortsAfterIsTheBytesOrder() {
        #expect(SQLiteStorage.sortsAfter("b", "a"))
        #expect(!SQLiteStorage.sortsAfter("a", "b"))
        #expect(!SQLiteStorage.sortsAfter("a", "a"))
        #expect(SQLiteStorage.sortsAfter("ab", "a"), "a longer key with the same start")
        #expect(!SQLiteStorage.sortsAfter("a", "ab"))
        #expect(SQLiteStorage.sortsAfter("a", ""))
        #expect(!SQLiteStorage.sortsAfter("", ""))
        #expect(SQLiteStorage.sortsAfter("é", "z"), "0xC3 sorts after 0x7A")
        #expect(SQLiteStorage.sortsAfter("\u{E9}", "e\u{301}") && !SQLiteStorage.sortsAfter("e\u{301}", "\u{E9}"))
        #expect(SQLiteStorage.sortsAfter("oid:65a00000000000000000000b", "oid:65a00000000000000000000a"))
    }

    @Test func inMemoryConformance() async throws {
        try await StorageConformance.runAll { try SQLiteStorage.inMemory() }
    }

    @Test func dataSurvivesReopening() async throws {
        try await TemporaryDirectory.with("reopen") { directory in
            let path = directory.path("server.sqlite")
            let first = try SQLiteStorage(path: path)
            try await first.prepare()
            try await first.transaction(appId: "app") { tx in
                try await tx.putDocument(collection: "Item", ["_id": .int(1)])
                _ = try await tx.appendChangeset(ServerChangesetDraft(changes: []))
            }
            try await first.close()
            let second = try SQLiteStorage(path: path)
            try await second.prepare()
            #expect(try await second.latestServerVersion(appId: "app") == 1)
            #expect(try await second.document(appId: "app", collection: "Item", primaryKey: .int(1)) == ["_id": .int(1)])
            try await second.close()
        }
    }

    /// A commit is synced to disk before it returns (`synchronous=FULL`; GRDB's pool sets NORMAL, which syncs the
    /// WAL only at checkpoints): the server acknowledges uploads once their commit returns.
    @Test func commitsAreSyncedToDisk() async throws {
        try await TemporaryDirectory.with("durable") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            let (synchronous, journal) = try await storage.writer.write { db in
                (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
            }
            #expect(synchronous == 2)
            #expect(journal == "wal")
            try await storage.close()
        }
    }

    /// The small reads a transaction body makes in place (``SQLiteStorage/readNow(_:_:)``) do not wait for the
    /// pool's readers. An `async` read holds its reader until its task runs again on the cooperative pool; when
    /// those reads waited for a pool reader, blocking cooperative threads, a busy server stopped with both threads
    /// of this machine waiting (found by the convergence hunt). Here every pool reader is held, and the in-place
    /// read still returns (before: it waited until they were let go).
    @Test func inPlaceReadsDoNotWaitForThePoolsReaders() async throws {
        try await TemporaryDirectory.with("place-reader") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            try await storage.transaction(appId: "app") { tx in
                try await tx.putDocument(collection: "Item", ["_id": .int(1)])
                _ = try await tx.appendChangeset(ServerChangesetDraft(changes: []))
            }
            let pool = try #require(storage.writer as? DatabasePool)
            let readers = pool.configuration.maximumReaderCount
            let gate = DispatchSemaphore(value: 0)
            let holding = Guarded(0)
            let holders = (0..<readers).map { _ in
                Task {
                    try await storage.read("hold a reader") { _ in
                        holding.withLock { $0 += 1 }
                        gate.wait()
                    }
                }
            }
            let deadline = ContinuousClock.now + .seconds(20)
            while holding.withLock({ $0 }) < readers, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(holding.withLock { $0 } == readers)
            // The in-place read runs on a thread of its own, so that a wait cannot block the test's threads.
            let result = Guarded<Int64?>(nil)
            Thread {
                let version = try? storage.readNow("read the version") { db in
                    try SQLiteStorage.latestServerVersion(db, appId: "app")
                }
                result.withLock { $0 = version }
            }.start()
            let readDeadline = ContinuousClock.now + .seconds(5)
            while result.withLock({ $0 }) == nil, ContinuousClock.now < readDeadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(result.withLock { $0 } == 1, "the in-place read waited for the pool's readers")
            for _ in 0..<readers { gate.signal() }
            for holder in holders { try await holder.value }
            try await storage.close()
        }
    }

    /// Checkpoints run on the checkpointer's connection, not inside the commit that fills the WAL
    /// (`WALCheckpointer`), and lose nothing.
    @Test func walIsCheckpointedInTheBackground() async throws {
        try await TemporaryDirectory.with("checkpoint") { directory in
            let path = directory.path("server.sqlite")
            let storage = try SQLiteStorage(path: path)
            try await storage.prepare()
            let filler = String(repeating: "x", count: 100_000)
            // 80 commits of ~25 pages each: about twice the checkpoint threshold of 1,000 pages.
            for i in 0..<80 {
                try await storage.transaction(appId: "app") { tx in
                    try await tx.putDocument(collection: "Item", ["_id": .int(Int64(i)), "filler": .string(filler)])
                    _ = try await tx.appendChangeset(ServerChangesetDraft(changes: []))
                }
            }
            let checkpointer = try #require(storage.checkpointer)
            let deadline = ContinuousClock.now + .seconds(20)
            while checkpointer.checkpointCount == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(checkpointer.checkpointCount >= 1)
            // The checkpoint copied pages into the database file itself.
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            #expect(size > 1_000_000)
            try await storage.close()

            let reopened = try SQLiteStorage(path: path)
            try await reopened.prepare()
            #expect(try await reopened.latestServerVersion(appId: "app") == 80)
            #expect(try await reopened.documents(appId: "app", collection: "Item").count == 80)
            try await reopened.close()
        }
    }

    /// A wanted checkpoint waits while commits keep coming (it competes with their syncs for the disk), runs once
    /// they pause for the quiet period, and runs at once when the WAL has grown to the busy threshold.
    @Test func checkpointsWaitForAPauseInTheCommits() {
        let commit = DispatchTime.now()
        let soon = commit + .milliseconds(10)
        let later = commit + .milliseconds(200)
        #expect(WALCheckpointer.nextLook(pages: 1_500, lastCommit: commit, now: soon) == commit + WALCheckpointer.quietPeriod)
        #expect(WALCheckpointer.nextLook(pages: 1_500, lastCommit: commit, now: later) == nil)
        #expect(WALCheckpointer.nextLook(pages: WALCheckpointer.busyThreshold, lastCommit: commit, now: soon) == nil)
        #expect(WALCheckpointer.threshold < WALCheckpointer.busyThreshold && WALCheckpointer.busyThreshold < WALCheckpointer.inlineLimit)
    }

    @Test func unopenablePathThrowsUnavailable() throws {
        #expect(throws: StorageError.self) {
            try SQLiteStorage(path: "/nonexistent-directory-\(UUID().uuidString)/server.sqlite")
        }
        do {
            _ = try SQLiteStorage(path: "/nonexistent-directory-\(UUID().uuidString)/server.sqlite")
        } catch {
            #expect(StorageError.Code.unavailable ~= error)
        }
    }
}

/// A value behind a lock, shared with tasks and threads.
private final class Guarded<T>: @unchecked Sendable {  // `value` is behind `lock`
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func withLock<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&value) } }
}
