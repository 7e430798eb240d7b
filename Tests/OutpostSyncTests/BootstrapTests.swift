import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// Subscription bootstraps interleaved with other clients' writes, reduced from the convergence runs.
@Suite(.timeLimit(.minutes(3))) struct BootstrapTests {
    /// Seed 39 of the convergence hunt with changing subscriptions: a client narrows its subscription so that an
    /// object leaves its view, and another client deletes that object while the server reads the documents for the
    /// bootstrap. The bootstrap no longer sees the object (so it does not remove it), and the deletion, sent after
    /// the bootstrap, concerns an object outside the new view — the client must still lose the object.
    @Test func objectDeletedWhileTheBootstrapIsReadLeavesTheNarrowedView() async throws {
        let storage = GatedStorage(MemoryStorage())
        try await withTestServer(configuration: .development(appId: "bootstrap"), storage: storage) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let (a, b) = try await openTwoDevices(user)
                let item = ConvergenceItem()
                item.count = 10
                try b.write { b.add(item) }
                let id = item._id
                try await b.syncSession!.wait(for: .upload)
                try await a.syncSession!.wait(for: .download)
                a.refresh()
                #expect(a.object(ofType: ConvergenceItem.self, forPrimaryKey: id) != nil)

                // A narrows its view; the server holds the bootstrap's read while B deletes the object.
                storage.arm()
                let subscriptions = a.subscriptions
                subscriptions.update({
                    subscriptions.removeAll()
                    subscriptions.append(QuerySubscription<ConvergenceItem>(name: "big", where: "count >= 50"))
                }, onComplete: nil)
                try await eventually("the bootstrap reads the documents") { storage.isHolding }
                try b.write { b.delete(item) }
                try await b.syncSession!.wait(for: .upload)
                storage.open()

                try await eventually("the new subscription completes") { subscriptions.state == .complete }
                let session = a.syncSession!
                try await withDeadline(.seconds(20), "A's download") { try await session.wait(for: .download) }
                a.refresh()
                #expect(a.object(ofType: ConvergenceItem.self, forPrimaryKey: id) == nil,
                        "the deleted object stays on the client")
            }
        }
    }
}
