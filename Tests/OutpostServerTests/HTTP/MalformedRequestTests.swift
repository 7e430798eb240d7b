import Foundation
import OutpostServer
import OutpostServerTesting
import Testing

/// Bytes that are not HTTP/1.1 are answered 400 and the connection closes, on the first request of a connection
/// and on a later one; bodies over the limit are answered 413. Against a real server, over raw sockets.
@Suite struct MalformedRequestTests {
    func expectBadRequest(_ request: String, after first: String = "", sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        try await withTestServer { server in
            let connection = try LoopbackConnection(port: server.port)
            connection.send(first + request.replacingOccurrences(of: "APP", with: server.clientPath("")))
            let answer = try await connection.readUntilClosed().text
            let last = answer.components(separatedBy: "HTTP/1.1 ").last ?? ""
            #expect(last.hasPrefix("400"), "\(answer)", sourceLocation: sourceLocation)
        }
    }

    @Test func aBadRequestLine() async throws {
        try await expectBadRequest("THIS IS NOT HTTP\r\n\r\n")
    }

    @Test func aBadRequestLineIsAnsweredWithTheJSONError() async throws {
        try await withTestServer { server in
            let connection = try LoopbackConnection(port: server.port)
            connection.send("GET /health HTTP/9 x\r\n\r\n")
            let answer = try await connection.readUntilClosed().text
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains("\"code\":\"malformedRequest\""), "\(answer)")
        }
    }

    @Test func aBadHeader() async throws {
        try await expectBadRequest("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n")
    }

    @Test func aBadChunkedBody() async throws {
        try await expectBadRequest(
            "POST APPauth/providers/local-userpass/register HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
    }

    @Test func aBadSecondRequest() async throws {
        try await expectBadRequest(
            "NOT HTTP EITHER\r\n\r\n", after: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    }

    @Test func aBodyOverTheLimitIs413() async throws {
        try await withTestServer { server in
            let big = "{\"email\": \"" + String(repeating: "a", count: 3 * 1024 * 1024) + "\"}"
            let response = try await server.client.send(
                "POST", server.clientPath("auth/providers/local-userpass/register"), rawBody: big)
            #expect(response.status == 413, "\(response.text.prefix(200))")
            #expect(response.code == "bodyTooLarge")
            #expect(response.errorCode == "BadRequest")
        }
    }

    @Test func aConfiguredBodyLimit() async throws {
        try await withTestServer(tuning: { $0.maxRequestBodySize = 100 }) { server in
            let register = server.clientPath("auth/providers/local-userpass/register")
            let small = try await server.client.post(
                register, json: .object(["email": "ok@example.com", "password": "secret123"]))
            #expect(small.status == 201)
            let big = try await server.client.post(
                register, json: .object(["email": .string(String(repeating: "b", count: 200)), "password": "x"]))
            #expect(big.status == 413)
        }
    }

    @Test func aDeclaredLengthOverTheLimitIsRefusedBeforeTheBody() async throws {
        try await withTestServer { server in
            let connection = try LoopbackConnection(port: server.port)
            connection.send(
                "POST \(server.clientPath("auth/providers/local-userpass/register")) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{")
            // The default timeouts are far longer than this test: only the early refusal closes the connection.
            let answer = try await connection.readUntilClosed().text
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
            #expect(answer.lowercased().contains("connection: close"), "\(answer)")
            #expect(answer.contains("\"code\":\"bodyTooLarge\""), "\(answer)")
        }
    }
}
