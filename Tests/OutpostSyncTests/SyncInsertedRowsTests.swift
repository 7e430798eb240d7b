import Foundation
import Testing
@testable import Outpost
import OutpostCore
import OutpostCoreTesting

/// The upload's creates written from the values a transaction's inserts bound (`SyncInsertedRows`) against the same
/// creates written from the rows read back, which is what the commit did before and still does when the kept values
/// cannot be trusted.
@Suite struct SyncInsertedRowsTests {
    /// A local Realm whose instance records uploads as a synced one does (its upload recorder attached as the sync
    /// part attaches it to an instance of a synced file).
    private func recordingRealm() throws -> Realm {
        let dir = try ScratchRoot.directory("outpost-inserted")
        let realm = try Realm(configuration: Realm.Configuration(
            fileURL: dir.appendingPathComponent("default.realm"), objectTypes: [EvScalars.self]))
        realm.instance.attach(SyncRecorder(isFlexible: false, rejectsWritesOutsideSubscriptions: false), first: true)
        return realm
    }

    /// The instructions of the open transaction, as its commit would record them.
    private func recorded(_ realm: Realm) -> String {
        var text: [UInt8] = []
        realm.instance.syncInstructions(for: realm.instance.changes, deletedKeys: [:]).writeArray(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Every scalar type, with the values SQLite stores differently from how they were bound (NaN as NULL, -0.0 as
    /// 0), a NUL inside a string and empty data: the kept values give the bytes of the rows read back.
    @Test func keptValuesGiveTheBytesOfTheRowsReadBack() throws {
        let realm = try recordingRealm()
        realm.beginWrite()
        for i in 0..<300 {
            let o = EvScalars()
            o._id = ObjectId.generate()
            o.fill(i)
            switch i % 7 {
            case 0: o.float = .nan; o.double = .nan
            case 1: o.float = -0.0; o.double = -0.0; o.date = Date(timeIntervalSinceReferenceDate: -0.0)
            case 2: o.string = "nul \u{0} inside"; o.data = Data()
            case 3: o.double = .infinity; o.float = -.infinity; o.optionalData = Data()
            default: break
            }
            realm.add(o)
        }
        let kept = recorded(realm)
        let table = try #require(realm.instance.table(named: "EvScalars"))
        #expect(realm.instance.syncRecorder?.insertedValues(table, realm.instance.changes.tables["EvScalars"]!.sortedInsertions) != nil,
                "the creates come from the kept values")
        realm.instance.syncRecorder?.didWrite(table)
        #expect(realm.instance.syncRecorder?.insertedValues(table, realm.instance.changes.tables["EvScalars"]!.sortedInsertions) == nil)
        let readBack = recorded(realm)
        #expect(kept == readBack)
        #expect(kept.contains(#""op":"create""#))
        realm.cancelWrite()
    }

    /// A property written after `add` in the same transaction: the upload holds the value written last.
    @Test func aWriteAfterTheInsertIsUploaded() throws {
        let realm = try recordingRealm()
        realm.beginWrite()
        var objects: [EvScalars] = []
        for i in 0..<10 {
            let o = EvScalars()
            o._id = ObjectId.generate()
            o.fill(i)
            realm.add(o)
            objects.append(o)
        }
        objects[4].string = "changed after add"
        objects[9].int = 777_777
        let text = recorded(realm)
        #expect(text.contains(#""string":"changed after add""#))
        #expect(text.contains(#""int":777777"#) || text.contains(#""$numberLong":"777777""#))
        realm.cancelWrite()
    }

    /// An object added and deleted in the same transaction is not uploaded; the others still come from the kept
    /// values, in rowid order.
    @Test func anObjectDeletedInTheTransactionIsLeftOut() throws {
        let realm = try recordingRealm()
        realm.beginWrite()
        var ids: [ObjectId] = []
        var doomed: EvScalars?
        for i in 0..<5 {
            let o = EvScalars()
            o._id = ObjectId.generate()
            o.fill(i)
            realm.add(o)
            if i == 2 { doomed = o } else { ids.append(o._id) }
        }
        let gone = doomed!._id
        realm.delete(doomed!)
        let table = try #require(realm.instance.table(named: "EvScalars"))
        #expect(realm.instance.syncRecorder?.insertedValues(table, realm.instance.changes.tables["EvScalars"]!.sortedInsertions) != nil)
        let text = recorded(realm)
        #expect(!text.contains(gone.stringValue))
        let positions = ids.map { text.range(of: $0.stringValue)!.lowerBound }
        #expect(positions == positions.sorted())
        realm.cancelWrite()
    }

    /// Rowids out of one run, and more rows than the limit, are not kept: the commit reads those rows back.
    @Test func onlyOneRunOfRowsIsKept() {
        var rows = SyncInsertedRows(first: 10)
        rows.append(10, [.integer(1)])
        rows.append(11, [.integer(2)])
        #expect(rows.slice([10, 11]).map { Array($0) } == [[.integer(1)], [.integer(2)]])
        #expect(rows.slice([10, 12]) == nil, "a rowid past the run")
        #expect(rows.slice([9]) == nil, "a rowid before the run")
        rows.append(13, [.integer(4)])
        #expect(!rows.isValid)
        #expect(rows.slice([10]) == nil)

        var many = SyncInsertedRows(first: 1)
        for r in 1...Int64(SyncInsertedRows.limit) { many.append(r, [.null]) }
        #expect(many.isValid)
        many.append(Int64(SyncInsertedRows.limit) + 1, [.null])
        #expect(!many.isValid, "more than the limit is read back instead")
    }

    /// The values as SQLite gives them back.
    @Test func storedFormOfRealValues() {
        let row: [SQLiteValue] = [.real(.nan), .real(-0.0), .real(0.0), .real(1.5), .integer(0), .text("x")]
        let stored = SyncInsertedRows.stored(row)
        #expect(stored[0] == .null)
        if case .real(let zero) = stored[1] { #expect(zero == 0 && zero.sign == .plus) } else { Issue.record("not real") }
        #expect(Array(stored[2...]) == Array(row[2...]))
    }
}
