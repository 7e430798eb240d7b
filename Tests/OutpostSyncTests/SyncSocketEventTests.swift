import Foundation
import OutpostServerTesting
import Testing

@testable import Outpost

/// The event stream of the client's `SyncSocket` against a real server: local changes and ticks are queued once
/// however often they come, so a busy session's stream grows with messages only, and the end of the socket is known
/// before the session reaches `.closed` (it skips the stale local changes and ticks queued before it).
@Suite struct SyncSocketEventTests {
    @Test func localChangesAndTicksAreQueuedOnceUntilTheSessionTakesThem() async throws {
        try await withTestServer(configuration: .development(appId: "events")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let token = try await user.accessToken(forceRefresh: false)
                let conn = try await SyncSocket.connect(
                    url: SyncURL.realmSync(baseURL: app.baseURL, appId: app.appId), accessToken: token, timeout: .seconds(60))
                var events = conn.events.makeAsyncIterator()
                for _ in 0..<500 {
                    conn.inject(.localChange)
                    conn.inject(.pingTick)
                }
                #expect(Self.kind(await events.next()) == "localChange")
                #expect(Self.kind(await events.next()) == "pingTick")
                // Taken: the next local change is queued again; the tick is not taken yet, so none is added.
                conn.took(.localChange)
                conn.inject(.localChange)
                conn.inject(.pingTick)
                #expect(Self.kind(await events.next()) == "localChange")
                #expect(!conn.hasEnded)
                conn.close()
                #expect(Self.kind(await events.next()) == "closed")
                #expect(conn.hasEnded)
                #expect(await events.next() == nil)
            }
        }
    }

    private static func kind(_ event: SyncSocket.Event?) -> String {
        switch event {
        case .message?: "message"
        case .localChange?: "localChange"
        case .pingTick?: "pingTick"
        case .closed?: "closed"
        case nil: "end"
        }
    }
}
