import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// A class of the imported app below: its schema and rules come from the App Services export.
final class ImportedTask: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var owner_id: String
    @Persisted var summary: String
}

/// An app moved from App Services with `outpost-server import-app` syncs as it did there: its schema is known (so
/// development mode is off from the first start) and its rules hold.
@Suite(.timeLimit(.minutes(3))) struct ImportedAppSyncTests {
    /// A current-layout export: collection `tasks` holds class `ImportedTask`, each user may write only their own.
    static let export: [String: String] = [
        ".mdb/meta.json": #"{"config_version": 20230101, "client_app_id": "imported-abcde"}"#,
        "root_config.json": #"{"name": "imported"}"#,
        "auth/providers.json": #"{"anon-user": {"name": "anon-user", "type": "anon-user", "disabled": false}}"#,
        "data_sources/mongodb-atlas/config.json": #"{"name": "mongodb-atlas", "type": "mongodb-atlas", "config": {}}"#,
        "data_sources/mongodb-atlas/app/tasks/schema.json": """
            {"title": "ImportedTask", "bsonType": "object", "required": ["_id", "owner_id", "summary"],
             "properties": {"_id": {"bsonType": "objectId"}, "owner_id": {"bsonType": "string"},
                            "summary": {"bsonType": "string"}}}
            """,
        "data_sources/mongodb-atlas/app/tasks/rules.json": """
            {"database": "app", "collection": "tasks", "roles": [
              {"name": "owner", "apply_when": {},
               "document_filters": {"read": true, "write": {"owner_id": "%%user.id"}},
               "read": true, "write": true, "insert": true, "delete": true, "search": true}]}
            """,
        "sync/config.json": """
            {"type": "flexible", "state": "enabled", "development_mode_enabled": false,
             "queryable_fields_names": ["owner_id"]}
            """,
    ]

    @Test func anImportedAppSyncsItsSchemaAndEnforcesItsRules() async throws {
        let folder = try KillTests.temporaryDirectory("imported-app")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.export.forEach { path, text in
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let (app, _) = try AppServicesImport.run(folder: folder)
        #expect(!app.sync.developmentModeEnabled)
        try await withTestServer(configuration: app) { server in
            try await withClientApp(server) { client in
                let reports = SyncReports()
                reports.install(on: client)
                let user = try await client.login(credentials: .anonymous)
                var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                    subscriptions.append(QuerySubscription<ImportedTask>(name: "all"))
                })
                config.objectTypes = [ImportedTask.self]
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                let mine = ImportedTask()
                mine.owner_id = user.id
                mine.summary = "mine"
                try realm.write { realm.add(mine) }
                try await realm.syncSession!.wait(for: .upload)
                let stored = try await server.storage.documents(appId: server.appId, collection: "ImportedTask")
                #expect(stored.map { $0["summary"] } == [.string("mine")])

                // Another user's task: the imported write filter refuses it.
                let theirs = ImportedTask()
                theirs.owner_id = "someone-else"
                theirs.summary = "theirs"
                let theirId = theirs._id
                try realm.write { realm.add(theirs) }
                let errors = try await reports.waitForErrors(1)
                #expect(errors[0].compensatingWriteInfo?.first?.reason
                    == "write to \"\(theirId.stringValue)\" in table \"ImportedTask\" was denied by write filter in role \"owner\"")
                realm.refresh()
                #expect(realm.object(ofType: ImportedTask.self, forPrimaryKey: theirId) == nil)
                #expect(try await server.storage.documents(appId: server.appId, collection: "ImportedTask").count == 1)

                // The app's data, exported from MongoDB and imported while the client is connected, reaches it.
                let file = folder.appendingPathComponent("tasks.json").path
                let lines = (1...3).map {
                    #"{"_id": {"$oid": "65a00000000000000000000\#($0)"}, "owner_id": "someone", "summary": "imported \#($0)"}"#
                }
                try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
                let key = try String(contentsOf: server.dataDirectory.appendingPathComponent("admin-key"), encoding: .utf8)
                let importer = DocumentImporter(server: URL(string: server.baseURL)!,
                                                adminKey: key.trimmingCharacters(in: .whitespacesAndNewlines),
                                                collection: "ImportedTask", file: file)
                #expect(try await importer.run().documents == 3)
                let session = try #require(realm.syncSession)
                try await eventuallyAsync(timeout: testPatience, "the imported tasks arrive") {
                    try await session.wait(for: .download)
                    realm.refresh()
                    return realm.objects(ImportedTask.self).where { $0.summary.starts(with: "imported") }.count == 3
                }
            }
        }
    }
}
