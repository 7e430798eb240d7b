import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

final class MappedTask: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var taskName: String
    @Persisted var rank: Int
    @Persisted var detail: MappedTaskDetail?

    override class func propertiesMapping() -> [String: String] {
        ["id": "_id", "taskName": "task_name", "rank": "task_rank", "detail": "detail_doc"]
    }
}

final class MappedTaskDetail: EmbeddedObject {
    @Persisted var note: String
    override class func propertiesMapping() -> [String: String] { ["note": "note_text"] }
}

/// `propertiesMapping()` with sync: the server's documents, the changes both ways and the subscription queries use the
/// stored names (the way an app maps Swift names onto an Atlas collection's fields), while the app uses its own.
@Suite(.timeLimit(.minutes(3))) struct CustomColumnSyncTests {
    @Test func mappedPropertiesSyncUnderTheirStoredNames() async throws {
        try await withTestServer(configuration: .development(appId: "mapped")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                    subscriptions.append(QuerySubscription<MappedTask>(name: "all"))
                })
                config.objectTypes = [MappedTask.self, MappedTaskDetail.self]
                let writer = try await Realm(configuration: config, downloadBeforeOpen: .always)
                let low = MappedTask(), high = MappedTask()
                low.taskName = "low"
                low.rank = 1
                high.taskName = "high"
                high.rank = 5
                let detail = MappedTaskDetail()
                detail.note = "urgent"
                high.detail = detail
                try writer.write { writer.add([low, high]) }
                try await writer.syncSession!.wait(for: .upload)

                let documents = try await server.storage.documents(appId: server.appId, collection: "MappedTask")
                let stored = try #require(documents.first { $0["task_name"] == .string("high") })
                #expect(Set(stored.fields.keys) == ["_id", "task_name", "task_rank", "detail_doc"])
                #expect(stored["task_rank"] == .int(5))
                guard case .document(let nested)? = stored["detail_doc"] else {
                    Issue.record("the embedded object is not a document: \(String(describing: stored["detail_doc"]))")
                    return
                }
                #expect(Set(nested.fields.keys) == ["note_text"] && nested["note_text"] == .string("urgent"))

                // A second device subscribes by a Swift name; the server evaluates the query in stored names.
                var readerConfig = user.flexibleSyncConfiguration()
                readerConfig.objectTypes = [MappedTask.self, MappedTaskDetail.self]
                readerConfig.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("reader.realm")
                let reader = try await Realm(configuration: readerConfig)
                let subscriptions = reader.subscriptions
                try await subscriptions.update {
                    subscriptions.append(QuerySubscription<MappedTask>(name: "ranked") { $0.rank > 2 })
                }
                #expect(subscriptions.first(named: "ranked")?.queryString == "task_rank > 2")
                try await reader.syncSession!.wait(for: .download)
                reader.refresh()
                let tasks = reader.objects(MappedTask.self)
                #expect(tasks.map(\.taskName) == ["high"])
                #expect(tasks.first?.detail?.note == "urgent")
                #expect(tasks.where { $0.rank > 2 }.count == 1)

                // A change on the reader reaches the writer as a change of the stored field.
                try reader.write { tasks.first!.taskName = "higher" }
                try await reader.syncSession!.wait(for: .upload)
                try await writer.syncSession!.wait(for: .download)
                writer.refresh()
                #expect(writer.object(ofType: MappedTask.self, forPrimaryKey: high.id)?.taskName == "higher")
                let after = try await server.storage.documents(appId: server.appId, collection: "MappedTask")
                #expect(after.contains { $0["task_name"] == .string("higher") })
                #expect(!after.contains { $0["taskName"] != nil })
            }
        }
    }
}
