import Foundation
import OutpostServer
import OutpostServerTesting
import Testing

/// The audit checks of the storage conformance suite on the in-memory test storage (SQLite and PostgreSQL run them
/// with every other check in `SQLiteStorageTests` and `PostgresStorageTests`).
@Suite struct AuditStorageTests {
    @Test(arguments: StorageConformance.auditStorageChecks)
    func memoryStorage(_ check: StorageConformance.Check) async throws {
        try await check.run { MemoryStorage() }
    }
}
