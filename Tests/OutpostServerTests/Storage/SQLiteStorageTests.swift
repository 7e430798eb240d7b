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
