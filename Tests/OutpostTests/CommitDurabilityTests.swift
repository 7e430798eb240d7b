import Foundation
@testable import Outpost
import OutpostTesting
import Testing

/// `beginWrite(durable: false)` (the sync session's acknowledgement bookkeeping) commits without waiting for the
/// disk; the connection is back at `synchronous=FULL` as soon as that transaction ends, so every other write is
/// durable.
@Suite struct CommitDurabilityTests {
    private func synchronous(_ realm: Realm) throws -> SQLiteValue {
        try realm.instance.connection.scalar("PRAGMA synchronous")
    }

    @Test func onlyTheRelaxedTransactionSkipsTheSync() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let instance = realm.instance
        #expect(try synchronous(realm) == .integer(2))  // FULL

        try instance.beginWrite(durable: false)
        #expect(try synchronous(realm) == .integer(1))  // NORMAL
        realm.add(Item())
        try instance.commitWrite()
        // Back at FULL as soon as the relaxed transaction ends, for every path that writes (schema changes too).
        #expect(try synchronous(realm) == .integer(2))

        // The next write is durable again, whether committed or cancelled.
        try realm.write {
            #expect((try? synchronous(realm)) == .integer(2))
            realm.add(Item())
        }
        try instance.beginWrite(durable: false)
        instance.cancelWrite()
        #expect(try synchronous(realm) == .integer(2))
        realm.beginWrite()
        #expect(try synchronous(realm) == .integer(2))
        realm.cancelWrite()
        #expect(realm.objects(Item.self).count == 2)
    }

    /// A relaxed commit is in the file as any other (only a power failure before the next durable commit, which
    /// syncs it with its own, could take it).
    @Test func aRelaxedCommitIsSeenByTheNextOpen() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        do {
            let realm = try Realm(configuration: dir.configuration())
            try realm.instance.beginWrite(durable: false)
            realm.add(Item())
            try realm.instance.commitWrite()
        }
        #expect(try Realm(configuration: dir.configuration()).objects(Item.self).count == 1)
    }
}
