import Foundation
import OutpostCore
import OutpostTesting
import Testing
@testable import Outpost

typealias BulkDocument = OutpostCore.Document

final class BulkItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var count: Int
    @Persisted var flag: Bool
    @Persisted var ratio: Double
    @Persisted var small: Float
    @Persisted var when: Date
    @Persisted var amount: Decimal128
    @Persisted var uuid: UUID
    @Persisted var blob: Data
    @Persisted var note: String?
    @Persisted var other: ObjectId?
}

final class BulkTagged: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var tags: List<String>
}

/// A download into tables that are empty when it begins (a bootstrap) creates its objects through the insert
/// buffer (`syncInsertNew`); the result must be what the general path (`syncUpsert`) makes of the same download.
@Suite struct SyncNewRowsTests {
    static let prefilledId = ObjectId.generate()

    static func item(_ i: Int) -> (Value, BulkDocument) {
        let id = Value.objectId(ObjectId.generate())
        return (id, [
            "_id": id, "name": .string("item \(i) é"), "count": .int(Int64(i) - 50), "flag": .bool(i % 2 == 0),
            "ratio": i % 3 == 0 ? .int(Int64(i)) : .double(Double(i) / 7), "small": .double(1.5),
            "when": .date(Date(timeIntervalSince1970: 1_700_000_000.125 + Double(i))),
            "amount": .decimal128(Decimal128(i)), "uuid": .uuid(UUID()), "blob": .data(Data([UInt8(i % 256), 0, 255])),
            "note": i % 4 == 0 ? .null : .string("n\(i)"), "other": i % 5 == 0 ? .null : .objectId(ObjectId.generate()),
            "ignored": .string("a field the class does not have"),
        ])
    }

    /// Opens a Realm with the sync tables, applies `instructions` as one download, and returns every object of
    /// `BulkItem` and `BulkTagged` as the protocol documents the client would upload, keyed by class and primary key.
    static func apply(_ instructions: [DownloadInstruction], prefill: Bool, in dir: TemporaryDirectory,
                      name: String) throws -> (documents: [String: BulkDocument], report: RealmInstance.SyncDownloadReport) {
        let realm = try Realm(configuration: dir.configuration(name, objectTypes: [BulkItem.self, BulkTagged.self]))
        try realm.write { try realm.instance.connection.execute(SyncFile.createTables) }
        if prefill {
            // An object in each table: the download then finds no empty table and takes the general path.
            try realm.write {
                let item = BulkItem()
                item._id = Self.prefilledId
                realm.add(item)
                let tagged = BulkTagged()
                tagged._id = -1
                realm.add(tagged)
            }
        }
        let report = try realm.instance.syncApplyDownload(
            [DownloadChangeset(serverVersion: 5, originFileIdent: 0, originClientVersion: 0, timestamp: 0,
                               instructions: instructions)],
            cursor: DownloadCursor(serverVersion: 5, clientVersion: 0), uploadAck: 0, bootstrappedQueryVersion: nil)
        realm.refresh()
        var documents: [String: BulkDocument] = [:]
        for (type, className) in [(BulkItem.self as Object.Type, "BulkItem"), (BulkTagged.self, "BulkTagged")] {
            let table = try #require(realm.instance.table(named: className))
            for object in realm.objects(type) {
                let row = try #require(object._row)
                let document = try #require(realm.instance.syncDocument(table, rowid: row.rowid))
                let pk = try #require(document["_id"])
                if pk == .int(-1) || pk == .objectId(Self.prefilledId) { continue }  // the prefilled objects
                documents[className + " " + pk.extendedJSONText] = document
            }
        }
        return (documents, report)
    }

    @Test func bootstrapIntoEmptyTablesMatchesTheGeneralPath() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var instructions: [DownloadInstruction] = []
        var ids: [Value] = []
        for i in 0..<300 {
            let (id, fields) = Self.item(i)
            ids.append(id)
            instructions.append(.upsert(className: "BulkItem", primaryKey: id, fields: fields))
        }
        // The same object again in the same download (an update), one erased and created again, one erased.
        instructions.append(.upsert(className: "BulkItem", primaryKey: ids[3], fields: ["name": .string("renamed"), "count": .int(7)]))
        instructions.append(.erase(className: "BulkItem", primaryKey: ids[4]))
        instructions.append(.upsert(className: "BulkItem", primaryKey: ids[4], fields: Self.item(4).1.setting("_id", ids[4])))
        instructions.append(.erase(className: "BulkItem", primaryKey: ids[5]))
        // A class with a list takes the general path.
        for i in 0..<20 {
            instructions.append(.upsert(className: "BulkTagged", primaryKey: .int(Int64(i)),
                                        fields: ["_id": .int(Int64(i)), "tags": .array([.string("t\(i)"), .string("u")])]))
        }
        let fast = try Self.apply(instructions, prefill: false, in: dir, name: "fast.realm")
        let general = try Self.apply(instructions, prefill: true, in: dir, name: "general.realm")
        #expect(fast.report.problems.isEmpty)
        #expect(fast.documents.count == 299 + 20)
        #expect(fast.documents.count == general.documents.count)
        for (key, document) in general.documents {
            #expect(fast.documents[key] == document, "\(key)")
        }
        let renamed = try #require(fast.documents["BulkItem " + ids[3].extendedJSONText])
        #expect(renamed["name"] == .string("renamed"))
        #expect(renamed["count"] == .int(7))
        #expect(fast.documents["BulkItem " + ids[5].extendedJSONText] == nil)
        #expect(fast.documents["BulkItem " + ids[0].extendedJSONText]?["ratio"] == .double(0))
    }

    @Test func documentsTheBufferCannotTakeGoTheGeneralWay() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (a, fieldsA) = Self.item(1)
        let (b, fieldsB) = Self.item(2)
        let (c, fieldsC) = Self.item(3)
        let instructions: [DownloadInstruction] = [
            .upsert(className: "BulkItem", primaryKey: a, fields: fieldsA),
            // A missing field (the general path gives the property's default), then more new objects.
            .upsert(className: "BulkItem", primaryKey: b, fields: fieldsB.removing("name")),
            .upsert(className: "BulkItem", primaryKey: c, fields: fieldsC),
            // A value of the wrong type and a null for a required property: reported, not applied.
            .upsert(className: "BulkItem", primaryKey: .objectId(ObjectId.generate()), fields: Self.item(4).1.setting("count", .string("x"))),
            .upsert(className: "BulkItem", primaryKey: .objectId(ObjectId.generate()), fields: Self.item(5).1.setting("flag", .null)),
        ]
        let fast = try Self.apply(instructions, prefill: false, in: dir, name: "fast.realm")
        let general = try Self.apply(instructions, prefill: true, in: dir, name: "general.realm")
        #expect(fast.documents == general.documents)
        #expect(fast.report.problems.count == general.report.problems.count)
        #expect(fast.report.problems.count == 2)
        #expect(fast.documents["BulkItem " + b.extendedJSONText]?["name"] == .string(""))
        #expect(fast.documents["BulkItem " + c.extendedJSONText]?["name"] == .string("item 3 é"))
    }

    @Test func newObjectsNotifyLikeLocalInserts() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration("n.realm", objectTypes: [BulkItem.self, BulkTagged.self]))
        try realm.write { try realm.instance.connection.execute(SyncFile.createTables) }
        var insertions: [Int] = []
        var initial = false
        let token = realm.objects(BulkItem.self).observe { change in
            if case .initial = change { initial = true }
            if case .update(_, _, let inserted, _) = change { insertions += inserted }
        }
        defer { token.invalidate() }
        #expect(spinRunLoop(until: { initial }))
        let instructions = (0..<150).map { i -> DownloadInstruction in
            let (id, fields) = Self.item(i)
            return .upsert(className: "BulkItem", primaryKey: id, fields: fields)
        }
        _ = try realm.instance.syncApplyDownload(
            [DownloadChangeset(serverVersion: 1, originFileIdent: 0, originClientVersion: 0, timestamp: 0, instructions: instructions)],
            cursor: DownloadCursor(serverVersion: 1, clientVersion: 0), uploadAck: 0, bootstrappedQueryVersion: nil)
        #expect(spinRunLoop(timeout: 10, until: { insertions.count == 150 }))
        #expect(realm.objects(BulkItem.self).count == 150)
    }
}

private extension OutpostCore.Document {
    func setting(_ key: String, _ value: Value) -> OutpostCore.Document {
        var fields = self.fields
        fields[key] = value
        return OutpostCore.Document(fields)
    }

    func removing(_ key: String) -> OutpostCore.Document {
        var fields = self.fields
        fields[key] = nil
        return OutpostCore.Document(fields)
    }
}
