import Foundation
@testable import Outpost
import OutpostTesting
import Testing

/// The hooks a Realm instance gives the observers of its write transactions (`CommitObserver`), on a local Realm: in
/// order for a write that commits, one that is cancelled and one whose `transactionWillCommit` throws.
@Suite struct CommitObserverTests {
    /// The hooks observers were told of, one line each, in order.
    final class Transcript {
        var lines: [String] = []
    }

    struct Refused: Error {}

    /// Writes each hook it is told of to a transcript; throws `failure` from `transactionWillCommit` when set.
    final class Recorder: CommitObserver {
        let name: String
        let transcript: Transcript
        var failure: Refused?

        init(_ name: String = "", transcript: Transcript = Transcript()) {
            self.name = name
            self.transcript = transcript
        }

        private func note(_ line: String) {
            transcript.lines.append(name.isEmpty ? line : "\(name): \(line)")
        }

        func transactionDidBegin(in instance: RealmInstance) {
            note("begin")
        }

        func rowWillChange(_ row: ManagedRow, in instance: RealmInstance) {
            note("will change \(row.table.className) \(row.rowid)")
        }

        func rowDidInsert(_ table: TableInfo, rowid: Int64, values: [SQLiteValue]) {
            note("inserted \(table.className) \(rowid)")
        }

        func rowDidUpdate(_ row: ManagedRow, column: Int) {
            note("updated \(row.table.className) \(row.rowid) \(row.table.propertyNameOfColumn[column])")
        }

        func rowWillDelete(_ row: @autoclosure () -> ManagedRow, in instance: RealmInstance) {
            let deleted = row()
            note("will delete \(deleted.table.className) \(deleted.rowid)")
        }

        func transactionWillCommit(_ changes: ChangeSet, in instance: RealmInstance) throws {
            note("will commit \(changes.tables.keys.sorted())")
            if let failure { throw failure }
        }

        func transactionDidCommit(in instance: RealmInstance) {
            note("did commit")
        }

        func transactionDidRollback(in instance: RealmInstance) {
            note("did roll back")
        }
    }

    /// The number of `Item` rows in the file, read on a connection of its own (not through a Realm instance).
    private static func countItems(_ configuration: Realm.Configuration) throws -> Int64 {
        let connection = try SQLiteConnection(path: configuration.resolvedPath, readOnly: true)
        guard case .integer(let count) = try connection.scalar("SELECT count(*) FROM \"Item\"") else { return -1 }
        return count
    }

    private func newItem(_ name: String) -> Item {
        let item = Item()
        item.itemName = name
        return item
    }

    /// A local Realm has no observers: its writes pay one empty-list test per row, its reads one nil test.
    @Test func aLocalRealmHasNoObservers() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [Item.self]))
        let hasReadObserver = realm.instance.readObserver != nil
        #expect(realm.instance.commitObservers.isEmpty)
        #expect(!hasReadObserver)
    }

    @Test func aCommittedWrite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [Item.self]))
        let observer = Recorder()
        realm.instance.attach(observer)
        let item = newItem("first")
        try realm.write { realm.add(item) }
        try realm.write {
            item.complexity = 3
            realm.delete(item)
        }
        #expect(observer.transcript.lines == [
            "begin", "inserted Item 1", "will commit [\"Item\"]", "did commit",
            "begin", "will change Item 1", "updated Item 1 complexity", "will change Item 1", "will delete Item 1",
            "will commit [\"Item\"]", "did commit",
        ])
        #expect(realm.objects(Item.self).isEmpty)
    }

    @Test func aCancelledWriteRollsBack() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [Item.self]))
        let observer = Recorder()
        realm.instance.attach(observer)
        realm.beginWrite()
        realm.add(newItem("cancelled"))
        realm.cancelWrite()
        // A block that throws cancels its write too.
        #expect(throws: Refused.self) {
            try realm.write {
                realm.add(newItem("thrown"))
                throw Refused()
            }
        }
        #expect(observer.transcript.lines == [
            "begin", "inserted Item 1", "did roll back",
            "begin", "inserted Item 1", "did roll back",
        ])
        #expect(realm.objects(Item.self).isEmpty)
    }

    /// A `transactionWillCommit` that throws fails the commit with its error: the transaction is rolled back (nothing
    /// of it is in the file) and the observers after the thrower are not asked. The next write commits as usual.
    @Test func aThrowingWillCommitFailsTheWrite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = dir.configuration(objectTypes: [Item.self])
        let realm = try Realm(configuration: configuration)
        let transcript = Transcript()
        let second = Recorder("second", transcript: transcript)
        let first = Recorder("first", transcript: transcript)
        realm.instance.attach(second)
        realm.instance.attach(first, first: true)
        first.failure = Refused()
        #expect(throws: Refused.self) {
            try realm.write { realm.add(newItem("refused")) }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Item.self).isEmpty)
        #expect(try Self.countItems(configuration) == 0, "nothing reached the file")
        #expect(transcript.lines == [
            "first: begin", "second: begin",
            "first: inserted Item 1", "second: inserted Item 1",
            "first: will commit [\"Item\"]",
            "first: did roll back", "second: did roll back",
        ])

        transcript.lines.removeAll()
        first.failure = nil
        try realm.write { realm.add(newItem("accepted")) }
        #expect(transcript.lines == [
            "first: begin", "second: begin",
            "first: inserted Item 1", "second: inserted Item 1",
            "first: will commit [\"Item\"]", "second: will commit [\"Item\"]",
            "first: did commit", "second: did commit",
        ])
        #expect(try Self.countItems(configuration) == 1)
    }
}
