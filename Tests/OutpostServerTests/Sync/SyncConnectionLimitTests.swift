import Foundation
import OutpostServer
import OutpostServerTesting
import Testing

/// The WebSocket rules a sync client must keep, against a real server over raw sockets: frames are masked, and a
/// user has at most `maxSyncConnectionsPerUser` connections.
@Suite struct SyncConnectionLimitTests {
    @Test func anUnmaskedFrameClosesWith1002() async throws {
        try await withTestServer { server in
            let login = try await server.loginAnonymous()
            let connection = try LoopbackConnection(port: server.port)
            let answer = try await RawWebSocket.upgrade(connection, server: server, token: login.accessToken)
            #expect(answer.hasPrefix("HTTP/1.1 101"), "\(answer)")
            connection.send(RawWebSocket.unmaskedText("hi"))
            let frames = try await connection.readUntilClosed()
            // The close frame: FIN + close opcode, 2 bytes, code 1002.
            let close: [UInt8] = [0x88, 0x02, 0x03, 0xEA]
            #expect(frames.count >= 4 && Array(frames.suffix(4)) == close, "\(frames)")
        }
    }

    @Test func maskedFramesAreRead() async throws {
        try await withTestServer { server in
            let login = try await server.loginAnonymous()
            let connection = try LoopbackConnection(port: server.port)
            _ = try await RawWebSocket.upgrade(connection, server: server, token: login.accessToken)
            // A masked message that is not the protocol's: the sync engine refuses it with its own error, not 1002.
            connection.send(RawWebSocket.maskedText("hello"))
            let frames = try await connection.read(until: { $0.count >= 4 }, limit: .seconds(30))
            #expect(Array(frames.prefix(4)) != [0x88, 0x02, 0x03, 0xEA], "\(frames)")
        }
    }

    @Test func aUserHasAtMostTheConfiguredConnections() async throws {
        try await withTestServer(tuning: { $0.maxSyncConnectionsPerUser = 2 }) { server in
            let login = try await server.loginAnonymous()
            let other = try await server.loginAnonymous()
            var open: [LoopbackConnection] = []
            for _ in 0..<2 {
                let connection = try LoopbackConnection(port: server.port)
                #expect(try await RawWebSocket.upgrade(connection, server: server, token: login.accessToken)
                    .hasPrefix("HTTP/1.1 101"))
                open.append(connection)
            }
            let third = try LoopbackConnection(port: server.port)
            let refused = try await RawWebSocket.upgrade(third, server: server, token: login.accessToken)
            #expect(refused.hasPrefix("HTTP/1.1 429"), "\(refused)")
            #expect(refused.contains("\"code\":\"tooManyConnections\""), "\(refused)")
            // Another user is not affected.
            let theirs = try LoopbackConnection(port: server.port)
            #expect(try await RawWebSocket.upgrade(theirs, server: server, token: other.accessToken)
                .hasPrefix("HTTP/1.1 101"))
            // A closed connection gives its place back (once the server sees the close).
            open.removeFirst().close()
            var accepted = false
            for _ in 0..<100 where !accepted {
                let again = try LoopbackConnection(port: server.port)
                accepted = try await RawWebSocket.upgrade(again, server: server, token: login.accessToken)
                    .hasPrefix("HTTP/1.1 101")
                if !accepted { try await Task.sleep(for: .milliseconds(100)) } else { open.append(again) }
            }
            #expect(accepted)
            for connection in open { connection.close() }
            theirs.close()
        }
    }
}
