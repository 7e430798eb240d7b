import Foundation
import OutpostCore
import OutpostTesting
import Testing
@testable import Outpost

/// A bootstrap holds every object of the new view; after it, the file holds nothing else but its own creates that
/// are not integrated yet (`RealmInstance.syncSweep`). The server's removals only cover what it knows the file held;
/// after a reconnect it knows the last complete subscription set, while the file may hold objects of a later one
/// (the 300-step convergence hunt: a client kept an object another client had deleted, 3 of 41 seeds).
@Suite struct BootstrapSweepTests {
    @Test func aBootstrapRemovesWhatItDoesNotHoldButKeepsPendingCreates() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration("sweep", objectTypes: [BulkItem.self, BulkTagged.self]))
        try realm.write { try realm.instance.connection.execute(SyncFile.createTables) }
        let (kept, stale, created) = (ObjectId.generate(), ObjectId.generate(), ObjectId.generate())
        try realm.write {
            for (id, name) in [(kept, "kept"), (stale, "stale"), (created, "created here")] {
                let item = BulkItem()
                item._id = id
                item.name = name
                realm.add(item)
            }
            for id in [7, 8] {  // an Int primary key: 8 is in the new view, 7 is not
                let tagged = BulkTagged()
                tagged._id = id
                realm.add(tagged)
            }
            // `created` is a local create the server has not integrated yet.
            var queued = UploadInstructions()
            queued.append(.create(className: "BulkItem", primaryKey: .objectId(created),
                                  fields: ["_id": .objectId(created), "name": .string("created here")]))
            try realm.instance.syncFile.enqueue(queued)
        }

        // A download that is not a bootstrap leaves what it does not mention.
        let change = DownloadChangeset(
            serverVersion: 4, originFileIdent: 0, originClientVersion: 0, timestamp: 0,
            instructions: [.upsert(className: "BulkItem", primaryKey: .objectId(kept), fields: ["name": .string("changed")])])
        _ = try realm.instance.syncApplyDownload([change], cursor: DownloadCursor(serverVersion: 4, clientVersion: 0),
                                                 uploadAck: 0, bootstrappedQueryVersion: nil)
        realm.refresh()
        #expect(realm.objects(BulkItem.self).count == 3)
        #expect(realm.objects(BulkTagged.self).count == 2)

        // The bootstrap as the server writes it, read back from its JSON (the primary keys' Extended JSON included).
        var json: [UInt8] = []
        DownloadChangeset(
            serverVersion: 5, originFileIdent: 0, originClientVersion: 0, timestamp: 0,
            instructions: [
                .upsert(className: "BulkItem", primaryKey: .objectId(kept),
                        fields: ["_id": .objectId(kept), "name": .string("from the server")]),
                .upsert(className: "BulkTagged", primaryKey: .int(8), fields: ["_id": .int(8)]),
            ]).writeJSON(to: &json)
        let text = ServerMessage.downloadText(
            session: 1, cursor: DownloadCursor(serverVersion: 5, clientVersion: 0), latestServerVersion: 5, uploadAck: 0,
            queryVersion: 2, batch: .lastInBatch, changesetJSON: [json])
        guard case .download(let download) = try ServerMessage(text: text), let bootstrap = download.changesets.first else {
            Issue.record("the bootstrap did not parse")
            return
        }
        let report = try realm.instance.syncApplyDownload(
            [bootstrap], cursor: DownloadCursor(serverVersion: 5, clientVersion: 0), uploadAck: 0, bootstrappedQueryVersion: 2)
        realm.refresh()
        #expect(Set(realm.objects(BulkItem.self).map(\._id)) == [kept, created])
        #expect(realm.object(ofType: BulkItem.self, forPrimaryKey: kept)?.name == "from the server")
        #expect(realm.objects(BulkTagged.self).map(\._id) == [8])
        #expect(report.kept.filter { $0.contains("removed (not in the bootstrap)") }.count == 2, "\(report.kept)")
    }

    /// A bootstrap into empty tables (a first open) removes nothing and tracks nothing.
    @Test func aBootstrapIntoEmptyTablesKeepsAllItBrings() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration("first", objectTypes: [BulkItem.self, BulkTagged.self]))
        try realm.write { try realm.instance.connection.execute(SyncFile.createTables) }
        #expect(realm.instance.syncTablesHoldingObjects().isEmpty)
        let ids = (0..<50).map { _ in ObjectId.generate() }
        let bootstrap = DownloadChangeset(
            serverVersion: 5, originFileIdent: 0, originClientVersion: 0, timestamp: 0,
            instructions: ids.map { .upsert(className: "BulkItem", primaryKey: .objectId($0), fields: ["_id": .objectId($0)]) })
        _ = try realm.instance.syncApplyDownload(
            [bootstrap], cursor: DownloadCursor(serverVersion: 5, clientVersion: 0), uploadAck: 0, bootstrappedQueryVersion: 1)
        realm.refresh()
        #expect(Set(realm.objects(BulkItem.self).map(\._id)) == Set(ids))
        #expect(realm.instance.syncTablesHoldingObjects().map(\.schema.className) == ["BulkItem"])
    }
}
