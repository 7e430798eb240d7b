import Foundation
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
