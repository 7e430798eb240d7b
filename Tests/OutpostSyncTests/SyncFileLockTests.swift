import Foundation
@testable import Outpost
import Testing

@Suite struct SyncFileLockTests {
    @Test func oneHolderAtATimeAndHandOverOnRelease() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString).realm").path
        defer { try? FileManager.default.removeItem(atPath: path + ".sync.lock") }
        let first = SyncFileLock(realmPath: path)
        let second = SyncFileLock(realmPath: path)
        #expect(first.tryAcquire())
        #expect(first.tryAcquire())  // re-entrant for its holder
        #expect(!second.tryAcquire())
        first.release()
        #expect(second.tryAcquire())
        #expect(!first.tryAcquire())
        second.release()
    }
}
