import Foundation
import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// A message the client cannot read ends the connection, and nothing the client received after it on that
/// connection is handled: a download behind an unreadable one would move the cursor past the changes the client
/// could not read, and they would be lost for good.
@Suite(.timeLimit(.minutes(3))) struct UnreadableMessageTests {
    @Test func nothingAfterAnUnreadableDownloadIsHandled() async throws {
        try await TemporaryDirectory.with("unreadable") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            let app = AppDefinition.development(appId: "unreadable")
            let settings = try SyncAppSettings(app: app)
            let proxy = CorruptingSyncHandler(SyncEngine(storage: storage) { $0 == settings.appId ? settings : nil })
            try await withTestServer(configuration: app, storage: storage, handler: proxy) { server in
                try await withClientApp(server) { clientApp in
                    let user = try await clientApp.login(credentials: .anonymous)
                    let (a, b) = try await openTwoDevices(user)
                    // Something B has downloaded already, so that its cursor is past the start.
                    try a.write { a.add(ConvergenceItem()) }
                    try await a.syncSession!.wait(for: .upload)
                    try await b.syncSession!.wait(for: .download)
                    let before = try await storage.latestServerVersion(appId: "unreadable")

                    // Two objects in two transactions: B's connection gets the first one's download made unreadable,
                    // and the second one's download right behind it.
                    let x = ConvergenceItem()
                    x.name = "x"
                    let y = ConvergenceItem()
                    y.name = "y"
                    proxy.corrupt(downloadMentioning: x._id.stringValue)
                    try a.write { a.add(x) }
                    try await a.syncSession!.wait(for: .upload)
                    try await eventually("the first download is held") { proxy.isHolding }
                    try a.write { a.add(y) }
                    try await a.syncSession!.wait(for: .upload)

                    // B reconnects from where it was and gets both.
                    try await eventually("B has both objects") {
                        b.refresh()
                        return b.object(ofType: ConvergenceItem.self, forPrimaryKey: x._id) != nil
                            && b.object(ofType: ConvergenceItem.self, forPrimaryKey: y._id) != nil
                    }
                    // B's file was new, so its first bind had no ident: the binds with its ident are the ones after
                    // the unreadable message.
                    let victim = try #require(proxy.victimFile)
                    let binds = proxy.binds.filter { $0.fileIdent == victim }
                    #expect(!binds.isEmpty, "B connected again after the unreadable message")
                    // Its next bind starts from the version before the unreadable download: the download behind it
                    // (which had the later cursor) was not handled.
                    #expect(before > 0)
                    #expect(binds.first?.serverVersion == before,
                            "B's cursor when it came back: \(binds.map(\.serverVersion)), before the writes: \(before)")
                }
            }
            try await storage.close()
        }
    }
}

/// Serves sync connections through a ``SyncEngine``, recording each `bind`; when armed, it holds the first download
/// that mentions a given text, waits for the next download on that connection, and sends the held one cut in half
/// (unreadable) right before it.
final class CorruptingSyncHandler: SyncConnectionHandler {
    struct Bind: Sendable {
        var fileIdent: Int64?
        var serverVersion: Int64
    }

    private struct State {
        var target: String?
        var held: String?
        var victim: Int?
        var victimFile: Int64?
        var binds: [Bind] = []
        var connections = 0
    }

    private let engine: SyncEngine
    private let state = KillTests.LockedValue(State())

    init(_ engine: SyncEngine) { self.engine = engine }

    func corrupt(downloadMentioning text: String) { state.withLock { $0.target = text } }
    var isHolding: Bool { state.withLock { $0.held != nil } }
    var binds: [Bind] { state.withLock { $0.binds } }
    /// The file ident of the connection whose download was made unreadable.
    var victimFile: Int64? { state.withLock { $0.victimFile } }

    func serve(_ connection: SyncConnection) async {
        let number = state.withLock { $0.connections += 1; return $0.connections }
        let (inbound, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let fileIdent = KillTests.LockedValue<Int64?>(nil)
        let forward = Task { [state] in
            do {
                for try await text in connection.inbound {
                    if case .bind(_, _, _, let ident, _, let cursor, _)? = try? ClientMessage(text: text) {
                        fileIdent.withLock { $0 = ident }
                        state.withLock { $0.binds.append(Bind(fileIdent: ident, serverVersion: cursor.serverVersion)) }
                    }
                    continuation.yield(text)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        let send: @Sendable (String) async throws -> Void = { [state] text in
            // A new file learns its ident from the server.
            if text.contains("\"ident\""), case .ident(_, let ident, _)? = try? ServerMessage.decode(text) {
                fileIdent.withLock { $0 = ident }
            }
            let isDownload = text.contains("\"download\"")
            let toSend: [String] = state.withLock { state in
                if let target = state.target, state.held == nil, isDownload, text.contains(target) {
                    state.held = text
                    state.victim = number
                    state.victimFile = fileIdent.withLock { $0 }
                    state.target = nil
                    return []
                }
                if state.victim == number, let held = state.held, isDownload {
                    state.held = nil
                    state.victim = nil
                    return [String(held.prefix(held.count / 2)), text]
                }
                return [text]
            }
            for message in toSend { try await connection.send(message) }
        }
        await engine.serve(SyncConnection(
            user: connection.user, inbound: inbound, send: send, close: connection.close,
            remoteAddress: connection.remoteAddress))
        forward.cancel()
    }
}
