import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// Upload recording cases found by the convergence runs, each reduced to one client and one server.
@Suite(.timeLimit(.minutes(3))) struct UploadRecordingTests {
    /// Seeds 36 and 63 of the convergence hunt: `delete X; create Y; delete Y` in one transaction. SQLite gives Y the
    /// rowid X had; the upload must still erase X (and nothing of Y reaches the server).
    @Test func deleteThenCreateAndDeleteInOneTransactionErasesTheFirstObject() async throws {
        try await withTestServer(configuration: .development(appId: "recording")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                    subscriptions.append(QuerySubscription<ConvergenceItem>(name: "all"))
                })
                config.objectTypes = [ConvergenceItem.self]
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                let keep = ConvergenceItem()
                keep.name = "keep"
                let x = ConvergenceItem()
                x.name = "x"
                try realm.write {
                    realm.add(keep)
                    realm.add(x)
                }
                let xId = x._id
                try await realm.syncSession!.wait(for: .upload)
                try realm.write {
                    realm.delete(x)
                    let y = ConvergenceItem()
                    y.name = "y"
                    realm.add(y)
                    realm.delete(y)
                }
                try await realm.syncSession!.wait(for: .upload)
                try await realm.syncSession!.wait(for: .download)
                realm.refresh()
                #expect(realm.objects(ConvergenceItem.self).map(\.name) == ["keep"])
                let names = try await server.storage.documents(appId: server.appId, collection: "ConvergenceItem")
                    .map { $0["name"] }
                #expect(names == [.string("keep")], "the server still holds \(xId.stringValue)")
            }
        }
    }
}
