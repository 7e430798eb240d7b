import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// Downloads applied underneath pending local changes, reduced from the convergence runs.
@Suite(.timeLimit(.minutes(3))) struct RebaseTests {
    /// Seed 219 of the convergence hunt: a client changes a field of an object offline; meanwhile another client
    /// deletes the object, creates it again with an old value of that field, then sets the field to the value the
    /// first client chose. The first client applies the erase and the re-creation underneath its pending change:
    /// the re-created object must carry the pending local value, not the downloaded one — the server then reports
    /// no change of the field, so nothing would correct it later.
    @Test func objectRecreatedUnderneathAPendingChangeKeepsTheLocalValue() async throws {
        try await withTestServer(configuration: .development(appId: "rebase")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let (a, b) = try await openTwoDevices(user)
                let id = ObjectId.generate()
                let item = ConvergenceItem()
                item._id = id
                item.name = "first"
                try a.write { a.add(item) }
                try await a.syncSession!.wait(for: .upload)
                try await b.syncSession!.wait(for: .download)

                a.syncSession!.suspend()
                try a.write { item.tags.append("x") }  // pending: tags = ["x"]

                b.refresh()
                let gone = try #require(b.object(ofType: ConvergenceItem.self, forPrimaryKey: id))
                try b.write { b.delete(gone) }
                let again = ConvergenceItem()
                again._id = id
                again.name = "again"
                again.tags.append("old")
                try b.write { b.add(again) }
                try b.write { again.tags.replace(index: 0, object: "x") }
                try await b.syncSession!.wait(for: .upload)

                let session = a.syncSession!
                session.resume()
                try await withDeadline(.seconds(20), "A's upload") { try await session.wait(for: .upload) }
                try await withDeadline(.seconds(20), "A's download") { try await session.wait(for: .download) }
                a.refresh()
                let onServer = try #require(try await server.storage.document(
                    appId: server.appId, collection: "ConvergenceItem", primaryKey: .objectId(id)))
                #expect(onServer["tags"] == .array([.string("x")]))
                #expect(onServer["name"] == .string("again"))
                let local = try #require(a.object(ofType: ConvergenceItem.self, forPrimaryKey: id))
                #expect(Array(local.tags) == ["x"])
                #expect(local.name == "again")
            }
        }
    }
}
