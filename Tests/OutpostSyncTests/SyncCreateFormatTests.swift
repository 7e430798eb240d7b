import Foundation
import Testing
@testable import Outpost
import OutpostCore
import OutpostCoreTesting

/// A class with a `List`: its new objects take the general path.
final class CreatePathListed: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var tags: List<String>
}

/// The upload's `create` instructions written straight from column values (`RowJSONWriter`) against the general
/// path (`syncDocument` → `SyncInstruction.create`).
@Suite struct SyncCreateFormatTests {
    private func realm(_ types: [ObjectBase.Type]) throws -> Realm {
        let dir = try ScratchRoot.directory("outpost-create")
        return try Realm(configuration: Realm.Configuration(fileURL: dir.appendingPathComponent("default.realm"), objectTypes: types))
    }

    private func generalCreate(_ instance: RealmInstance, _ table: TableInfo, _ rowid: Int64) throws -> [UInt8] {
        let document = try #require(instance.syncDocument(table, rowid: rowid))
        let pk = table.primaryKeyProperty.flatMap { document[table.schema.allProperties[$0].name] } ?? .null
        var out: [UInt8] = []
        SyncInstruction.create(className: table.className, primaryKey: pk, fields: document).writeJSON(to: &out)
        return out
    }

    /// Every scalar type, with escapes, signs, rounding, the date range and nulls: the same bytes.
    @Test func columnValuesGiveTheGeneralPathsBytes() throws {
        let realm = try realm([EvScalars.self])
        try realm.write {
            for i in 0..<36 {
                let o = EvScalars()
                o._id = ObjectId.generate()
                o.fill(i)
                if i % 5 == 0 { o.float = .nan; o.double = -.infinity }
                realm.add(o)
            }
        }
        let instance = realm.instance
        let table = try #require(instance.table(named: "EvScalars"))
        let format = try #require(table.syncCreateFormat)
        let rowids = realm.objects(EvScalars.self).map { $0._row!.rowid }
        var seen = 0
        try instance.loadRows(table, rowids.sorted()) { rowid, values in
            var fast: [UInt8] = []
            format.writeCreate(values, to: &fast)
            #expect(String(decoding: fast, as: UTF8.self) == String(decoding: (try? generalCreate(instance, table, rowid)) ?? [], as: UTF8.self))
            seen += 1
        }
        #expect(seen == 36)
    }

    /// A transaction's instructions: the erases, the creates of both paths in class order, then the field sets —
    /// the same instructions, in the same order, as when every create took the general path.
    @Test func instructionsKeepTheirOrderAndContent() throws {
        let realm = try realm([EvScalars.self, CreatePathListed.self])
        try realm.write {
            for i in 0..<300 {
                let o = EvScalars()
                o._id = ObjectId.generate()
                o.fill(i)
                realm.add(o)
            }
            let listed = CreatePathListed()
            listed._id = ObjectId.generate()
            listed.name = "listed"
            listed.tags.append(objectsIn: ["a", "b"])
            realm.add(listed)
        }
        let instance = realm.instance
        let scalars = try #require(instance.table(named: "EvScalars"))
        let listedTable = try #require(instance.table(named: "CreatePathListed"))
        #expect(scalars.syncCreateFormat != nil)
        #expect(listedTable.syncCreateFormat == nil, "a List takes the general path")
        let scalarRows = realm.objects(EvScalars.self).map { $0._row!.rowid }.sorted()
        let listedRow = try #require(realm.objects(CreatePathListed.self).first?._row?.rowid)

        // Rows 10… inserted as a run and row 5 outside it, row 0 modified, a deleted object's erase.
        var changes = ChangeSet()
        for rowid in scalarRows.dropFirst(10) { changes.tables["EvScalars", default: .init()].insert(rowid) }
        changes.tables["EvScalars", default: .init()].insert(scalarRows[5])
        changes.tables["EvScalars", default: .init()].modify(scalarRows[0], "int")
        changes.tables["CreatePathListed", default: .init()].insert(listedRow)
        changes.tables["CreatePathListed", default: .init()].deletions.insert(9_999)
        let erased = Value.objectId(.generate())
        let recorded = instance.syncInstructions(for: changes, deletedKeys: ["CreatePathListed": [9_999: erased]])

        var expected: [SyncInstruction] = [.erase(className: "CreatePathListed", primaryKey: erased)]
        for (table, rowids) in [(listedTable, [listedRow]), (scalars, [scalarRows[5]] + scalarRows.dropFirst(10))] {
            for rowid in rowids {
                let document = try #require(instance.syncDocument(table, rowid: rowid))
                expected.append(.create(className: table.className, primaryKey: document["_id"] ?? .null, fields: document))
            }
        }
        let first = realm.objects(EvScalars.self).first { $0._row!.rowid == scalarRows[0] }!
        expected.append(.set(className: "EvScalars", primaryKey: .objectId(first._id), field: "int", value: .int(Int64(first.int))))

        var text: [UInt8] = []
        UploadChangeset.writeJSON(clientVersion: 1, lastServerVersion: 0, timestamp: 0, to: &text) { recorded.writeArray(to: &$0) }
        let parsed = try UploadChangeset(json: try #require(JSONValue.parse(String(decoding: text, as: UTF8.self))), path: "upload")
        #expect(recorded.count == expected.count)
        #expect(parsed.instructions.map(\.op) == expected.map(\.op))
        var general: [UInt8] = []
        UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: expected).writeJSON(to: &general)
        #expect(String(decoding: text, as: UTF8.self) == String(decoding: general, as: UTF8.self))
    }
}
