import CSQLite
import Foundation
@testable import Outpost
import OutpostTesting
import Testing

/// How durable a commit is (docs/storage.md).
@Suite struct DurabilityTests {
    /// A commit is synced to disk before `commitWrite` returns: WAL mode with `synchronous=FULL`, as Realm's
    /// default durability promises (NORMAL would sync the log only at checkpoints). Every Realm of the file,
    /// including one opened on another thread, uses the same setting.
    @Test func commitsAreSyncedToDisk() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = ThreadingFixture.configuration(dir)
        let realm = try Realm(configuration: configuration)
        try ThreadingFixture.seed(realm, count: 1)
        #expect(try realm.instance.connection.scalar("PRAGMA synchronous") == .integer(2))
        #expect(try realm.instance.connection.scalar("PRAGMA journal_mode") == .text("wal"))
        let other = try DispatchQueue(label: "other").sync {
            try Realm(configuration: configuration).instance.connection.scalar("PRAGMA synchronous")
        }
        #expect(other == .integer(2))
    }

    /// Deleting a large value does not write its freed pages again as zeros: `secure_delete=FAST` (the system
    /// SQLite of Debian and Ubuntu is built with `secure_delete` on, which zeroes every freed overflow page and so
    /// writes a deleted value's size again; a synced file deletes every upload it queued once the server has it).
    /// Deleted content inside the table's own pages is still zeroed (docs/storage.md).
    @Test func deletingALargeValueWritesFewPages() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: ThreadingFixture.configuration(dir))
        #expect(try realm.instance.connection.scalar("PRAGMA secure_delete") == .integer(2))
        let large = String(repeating: "x", count: 400_000)  // about 100 overflow pages of 4 KiB
        try realm.write { realm.add(TSPerson(id: 1, name: large)) }
        let handle = realm.instance.connection.handle
        func pagesWritten() -> Int32 {
            var current: Int32 = 0, highwater: Int32 = 0
            sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_WRITE, &current, &highwater, 1)  // and reset
            return current
        }
        _ = pagesWritten()
        try realm.write { realm.delete(realm.objects(TSPerson.self)) }
        let written = pagesWritten()
        #expect(written > 0 && written < 20, "pages written by the delete: \(written)")
        #expect(realm.objects(TSPerson.self).isEmpty)
    }
}
