import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// Reconnects in the middle of uploads, reduced from the convergence runs.
@Suite(.timeLimit(.minutes(3))) struct ReconnectTests {
    /// A client suspends while the server still integrates uploads it received on the old connection, and resumes
    /// at once; meanwhile another client keeps changing the same field. The old connection's uploads are
    /// integrated after the new connection bound, so the new session's first downloads contain changes made after
    /// them. The resumed client must not keep its own (older) value over those changes.
    @Test(arguments: 1...3)
    func resumeWhileTheOldConnectionsUploadsAreIntegratedConverges(round: Int) async throws {
        try await withTestServer(configuration: .development(appId: "reconnect")) { server in
            try await withClientApp(server) { app in
                let reports = SyncReports()
                reports.install(on: app)
                let user = try await app.login(credentials: .anonymous)
                let (a, b) = try await openTwoDevices(user)
                let item = ConvergenceItem()
                try a.write { a.add(item) }
                let id = item._id
                try await a.syncSession!.wait(for: .upload)
                try await b.syncSession!.wait(for: .download)
                b.refresh()
                let other = try #require(b.object(ofType: ConvergenceItem.self, forPrimaryKey: id))

                // A: many small uploads, then a quick suspend/resume while the server works through them.
                for i in 1...300 { try a.write { item.count = i } }
                try await Task.sleep(for: .milliseconds(20))
                a.syncSession!.suspend()
                a.syncSession!.resume()
                // B: keeps writing the same field meanwhile.
                for i in 1...100 {
                    try b.write { other.count = -i }
                    if i % 10 == 0 { try await Task.sleep(for: .milliseconds(5)) }
                }
                for _ in 1...2 {
                    for realm in [a, b] {
                        let session = realm.syncSession!
                        try await withDeadline(.seconds(30), "upload") { try await session.wait(for: .upload) }
                    }
                    for realm in [a, b] {
                        let session = realm.syncSession!
                        try await withDeadline(.seconds(30), "download") { try await session.wait(for: .download) }
                    }
                }
                a.refresh()
                b.refresh()
                let onServer = try #require(try await server.storage.document(
                    appId: server.appId, collection: "ConvergenceItem", primaryKey: .objectId(id)))
                #expect(item.count == other.count, "round \(round): A \(item.count), B \(other.count)")
                #expect(onServer["count"] == .int(Int64(item.count)), "round \(round): server \(onServer["count"]!), A \(item.count)")
            }
        }
    }
}
