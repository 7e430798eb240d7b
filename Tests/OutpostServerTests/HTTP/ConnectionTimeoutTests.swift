import Foundation
import OutpostServer
import OutpostServerTesting
import Testing

/// Every phase of an HTTP connection has a deadline, against a real server on a random port. The timeouts are one
/// second; each test waits for the server's close (read until end of file), with a generous guard.
@Suite struct ConnectionTimeoutTests {
    static func short(_ configuration: inout OutpostServerConfiguration) {
        configuration.requestHeadTimeout = .seconds(1)
        configuration.requestBodyTimeout = .seconds(1)
        configuration.idleTimeout = .seconds(1)
    }

    @Test func aPartialRequestLineIsAnswered408AndClosed() async throws {
        try await withTestServer(tuning: Self.short) { server in
            let connection = try LoopbackConnection(port: server.port)
            connection.send("GET /hea")
            let answer = try await connection.readUntilClosed().text
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
            #expect(answer.contains("\"code\":\"requestTimeout\""), "\(answer)")
        }
    }

    @Test func partialHeadersAreAnswered408AndClosed() async throws {
        try await withTestServer(tuning: Self.short) { server in
            let connection = try LoopbackConnection(port: server.port)
            connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            let answer = try await connection.readUntilClosed().text
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        }
    }

    @Test func aSilentConnectionIsClosed() async throws {
        try await withTestServer(tuning: Self.short) { server in
            let connection = try LoopbackConnection(port: server.port)
            let answer = try await connection.readUntilClosed().text
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        }
    }

    @Test func aStalledBodyIsAnswered408AndClosed() async throws {
        try await withTestServer(tuning: Self.short) { server in
            let connection = try LoopbackConnection(port: server.port)
            connection.send(
                "POST \(server.clientPath("auth/providers/local-userpass/register")) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            let answer = try await connection.readUntilClosed().text
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterItsResponse() async throws {
        try await withTestServer(tuning: {
            Self.short(&$0)
            $0.requestHeadTimeout = .seconds(600)
        }) { server in
            let connection = try LoopbackConnection(port: server.port)
            connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answer = try await connection.readUntilClosed().text
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            #expect(!answer.contains("408"), "an idle connection is closed without an answer: \(answer)")
        }
    }

    @Test func theDefaultsAreProductionTimeouts() {
        let configuration = OutpostServerConfiguration()
        #expect(configuration.requestHeadTimeout == .seconds(30))
        #expect(configuration.requestBodyTimeout == .seconds(60))
        #expect(configuration.idleTimeout == .seconds(75))
    }

    @Test func aSyncConnectionOutlivesTheHTTPTimeouts() async throws {
        // The head timeout leaves a loaded machine 10 s for the upgrade itself (at 1 s a busy CI run answered the
        // upgrade 408); the connection then stays open past all three timeouts.
        try await withTestServer(tuning: {
            Self.short(&$0)
            $0.requestHeadTimeout = .seconds(10)
        }) { server in
            let login = try await server.loginAnonymous()
            let connection = try LoopbackConnection(port: server.port)
            let answer = try await RawWebSocket.upgrade(connection, server: server, token: login.accessToken)
            #expect(answer.hasPrefix("HTTP/1.1 101"), "\(answer)")
            #expect(try await connection.staysOpen(for: .seconds(12)), "closed by an HTTP timeout after the upgrade")
        }
    }
}
