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
}
