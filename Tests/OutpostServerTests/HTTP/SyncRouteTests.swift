import Foundation
import HummingbirdWSClient
import Logging
import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// A sync handler for tests: records each connection's user and what it received, answers each text frame with
/// `echo:<text>`, and ends when the inbound stream ends.
final class RecordingSyncHandler: SyncConnectionHandler {
    struct Record: Sendable {
        var user: AuthenticatedUser
        var received: [String] = []
        var inboundError: SyncFrameError?
        var finished = false
    }

    let records = Mutex<[Record]>([])

    func serve(_ connection: SyncConnection) async {
        let index = records.withLock { records in
            records.append(Record(user: connection.user))
            return records.count - 1
        }
        do {
            for try await text in connection.inbound {
                records.withLock { $0[index].received.append(text) }
                if text == "bye" {
                    await connection.close(1000, "goodbye")
                } else {
                    try await connection.send("echo:\(text.prefix(20))")
                }
            }
        } catch {
            records.withLock { $0[index].inboundError = error as? SyncFrameError }
        }
        records.withLock { $0[index].finished = true }
    }

    var snapshot: [Record] { records.withLock { $0 } }

    /// Waits (up to 10 s, for loaded machines) until a connection has finished.
    func waitUntilFinished() async throws {
        for _ in 0..<1_000 where !(snapshot.last?.finished ?? false) {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

@Suite struct SyncRouteTests {
    let logger = Logger(label: "sync-route-test")

    func configuration(token: String?) -> WebSocketClientConfiguration {
        var configuration = WebSocketClientConfiguration()
        if let token { configuration.additionalHeaders[.authorization] = "Bearer \(token)" }
        return configuration
    }

    @Test func rejectsMissingAndInvalidTokensBeforeUpgrading() async throws {
        let handler = RecordingSyncHandler()
        try await withTestServer(handler: handler) { server in
            let login = try await server.loginAnonymous()
            for token in [nil, "garbage", login.refreshToken] {
                await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
                    try await WebSocketClient.connect(
                        url: server.syncURL(), configuration: configuration(token: token), logger: logger
                    ) { _, _, _ in }
                }
            }
            // What the client sees as an upgrade failure is a 401 with the usual JSON error.
            let upgradeHeaders = [
                "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            ]
            let missing = try await server.client.send("GET", server.clientPath("realm-sync"), headers: upgradeHeaders)
            #expect(missing.status == 401 && missing.code == "missingToken", "\(missing.status) \(missing.text)")
            var withBadToken = upgradeHeaders
            withBadToken["Authorization"] = "Bearer garbage"
            let invalid = try await server.client.send("GET", server.clientPath("realm-sync"), headers: withBadToken)
            #expect(invalid.status == 401 && invalid.code == "invalidToken")
            let otherApp = try await server.client.send(
                "GET", server.clientPath("realm-sync", appId: "nope"), headers: upgradeHeaders)
            #expect(otherApp.status == 404 && otherApp.code == "appNotFound")
            await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
                try await WebSocketClient.connect(
                    url: server.syncURL(appId: "nope"), configuration: configuration(token: login.accessToken),
                    logger: logger
                ) { _, _, _ in }
            }
            #expect(handler.snapshot.isEmpty)
        }
    }

    @Test func handsAuthenticatedConnectionsToTheHandler() async throws {
        let handler = RecordingSyncHandler()
        try await withTestServer(handler: handler) { server in
            let login = try await server.loginAnonymous()
            let replies = Mutex<[String]>([])
            let close = try await WebSocketClient.connect(
                url: server.syncURL(), configuration: configuration(token: login.accessToken), logger: logger
            ) { inbound, outbound, _ in
                try await outbound.write(.text("hello"))
                try await outbound.write(.text("world"))
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                for _ in 0..<2 {
                    if case .text(let text)? = try await messages.next() { replies.withLock { $0.append(text) } }
                }
                try await outbound.write(.text("bye"))
                while try await messages.next() != nil {}
            }
            #expect(replies.withLock { $0 } == ["echo:hello", "echo:world"])
            #expect(close?.closeCode == .normalClosure && close?.reason == "goodbye")
            try await handler.waitUntilFinished()
            let record = try #require(handler.snapshot.first)
            #expect(record.user.userId == login.userId && record.user.appId == server.appId)
            #expect(record.received == ["hello", "world", "bye"])
            #expect(record.finished && record.inboundError == nil)
        }
    }

    @Test func binaryFramesEndTheInboundStream() async throws {
        let handler = RecordingSyncHandler()
        try await withTestServer(handler: handler) { server in
            let login = try await server.loginAnonymous()
            let close = try await WebSocketClient.connect(
                url: server.syncURL(), configuration: configuration(token: login.accessToken), logger: logger
            ) { inbound, outbound, _ in
                try await outbound.write(.binary(.init(bytes: [1, 2, 3])))
                for try await _ in inbound {}
            }
            #expect(close?.closeCode == .unacceptableData)
            try await handler.waitUntilFinished()
            #expect(handler.snapshot.first?.inboundError == .binaryFrame)
        }
    }

    @Test func messagesOver16MiBAreRejected() async throws {
        let handler = RecordingSyncHandler()
        try await withTestServer(handler: handler) { server in
            let login = try await server.loginAnonymous()
            var clientConfiguration = configuration(token: login.accessToken)
            clientConfiguration.maxFrameSize = 1 << 20
            let close = try? await WebSocketClient.connect(
                url: server.syncURL(), configuration: clientConfiguration, logger: logger
            ) { inbound, outbound, _ in
                // The server may close while continuation frames are still being written.
                try? await outbound.writeTextMessage(String(repeating: "a", count: 16 * 1024 * 1024 + 1))
                for try await _ in inbound {}
            }
            // The close frame (1009) reaches the client unless the server's close raced the client's last writes.
            #expect(close?.closeCode == nil || close?.closeCode == .messageTooLarge)
            try await handler.waitUntilFinished()
            #expect(handler.snapshot.first?.inboundError == .frameTooLarge(limit: 16 * 1024 * 1024))
            #expect(handler.snapshot.first?.received.isEmpty == true)
        }
    }

    @Test func theUnavailableHandlerClosesWithAReason() async throws {
        try await withTestServer(handler: UnavailableSyncConnectionHandler()) { server in
            let login = try await server.loginAnonymous()
            let close = try await WebSocketClient.connect(
                url: server.syncURL(), configuration: configuration(token: login.accessToken), logger: logger
            ) { inbound, _, _ in
                for try await _ in inbound {}
            }
            #expect(close?.closeCode == .unexpectedServerError)
            #expect(close?.reason == UnavailableSyncConnectionHandler.reason)
        }
    }
}
