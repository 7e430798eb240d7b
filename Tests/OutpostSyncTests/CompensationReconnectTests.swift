import Foundation
import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// A compensating write is reported once per rejected write also across a reconnect (issue #4, item 6): when the
/// connection drops between the server's 231 and the download that reverts the write, the client reports nothing
/// then; after it connects again the server sends both again, and the client reports the write once, after the
/// revert is applied.
@Suite(.timeLimit(.minutes(3))) struct CompensationReconnectTests {
    @Test func aRejectedWriteIsReportedOnceWhenTheConnectionDropsBeforeItsRevert() async throws {
        try await TemporaryDirectory.with("compensation-reconnect") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            let app = try seedServerApp(appId: "compensation-reconnect")
            let settings = try SyncAppSettings(app: app)
            let proxy = DropAfterCompensationHandler(SyncEngine(storage: storage) { $0 == settings.appId ? settings : nil })
            try await withTestServer(configuration: app, storage: storage, handler: proxy) { server in
                try await withClientApp(server) { clientApp in
                    let reports = SyncReports()
                    let user = try await clientApp.login(credentials: .anonymous)
                    let config = seedConfiguration(user)
                    reports.install(on: clientApp) { error in
                        // At report time the rejected object is gone from the file.
                        guard let id = error.compensatingWriteInfo?.first?.primaryKey, case .objectId(let oid) = id else { return false }
                        return (try? Realm(configuration: config))?.object(ofType: Item.self, forPrimaryKey: oid) == nil
                    }
                    let opened = try await Realm(configuration: config, downloadBeforeOpen: .always)
                    proxy.arm()
                    let rejected = Item()
                    rejected.ownerId = user.id
                    rejected.itemName = "too hard"
                    rejected.complexity = 7  // outside the subscription (complexity <= 4)
                    let rejectedId = rejected._id
                    try opened.write { opened.add(rejected) }
                    try await eventually("the connection dropped after the 231") { proxy.dropped }
                    let errors = try await reports.waitForErrors(1)
                    #expect(errors[0].code == .writeRejected)
                    #expect(errors[0].compensatingWriteInfo?.first?.primaryKey == .objectId(rejectedId))
                    #expect(reports.revertedFirst == [true], "reported after the revert was applied")
                    opened.refresh()
                    #expect(opened.object(ofType: Item.self, forPrimaryKey: rejectedId) == nil)
                    try await opened.syncSession!.wait(for: .download)
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(reports.errors.count == 1, "\(reports.errors)")
                    #expect(proxy.compensationsSent >= 2, "the server sent the 231 again after the reconnect")
                }
            }
            try await storage.close()
        }
    }
}

/// Serves sync connections through a ``SyncEngine``; when armed, it forwards the first `error` 231 and then drops
/// the connection instead of sending the download behind it (the revert).
final class DropAfterCompensationHandler: SyncConnectionHandler {
    private struct State {
        var armed = false
        var droppingConnection: Int?
        var dropped = false
        var compensationsSent = 0
        var connections = 0
    }

    private let engine: SyncEngine
    private let state = KillTests.LockedValue(State())

    init(_ engine: SyncEngine) { self.engine = engine }

    func arm() { state.withLock { $0.armed = true } }
    var dropped: Bool { state.withLock { $0.dropped } }
    var compensationsSent: Int { state.withLock { $0.compensationsSent } }

    func serve(_ connection: SyncConnection) async {
        let number = state.withLock { $0.connections += 1; return $0.connections }
        let send: @Sendable (String) async throws -> Void = { [state] text in
            let isCompensation = text.contains("\"error\"") && text.contains("231")
            let drop: Bool = state.withLock { state in
                if isCompensation {
                    state.compensationsSent += 1
                    if state.armed {
                        state.armed = false
                        state.droppingConnection = number
                    }
                    return false
                }
                if state.droppingConnection == number, text.contains("\"download\"") {
                    state.droppingConnection = nil
                    state.dropped = true
                    return true
                }
                return false
            }
            if drop {
                await connection.close(1001, "dropped by the test before the revert")
                throw CancellationError()
            }
            try await connection.send(text)
        }
        await engine.serve(SyncConnection(
            user: connection.user, inbound: connection.inbound, send: send, close: connection.close,
            remoteAddress: connection.remoteAddress))
    }
}
