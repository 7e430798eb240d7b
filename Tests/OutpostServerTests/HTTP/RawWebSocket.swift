import OutpostServerTesting

/// The WebSocket handshake and frames written by hand, for tests of what clients must not send.
enum RawWebSocket {
    /// Sends the upgrade request of the sync route and returns the server's answer head (and body, if refused).
    static func upgrade(_ connection: LoopbackConnection, server: TestServer, token: String) async throws -> String {
        connection.send(
            "GET \(server.clientPath("realm-sync")) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + "Authorization: Bearer \(token)\r\n\r\n")
        let answer = try await connection.read(until: { bytes in
            guard let end = bytes.text.range(of: "\r\n\r\n") else { return false }
            // A refused upgrade carries a JSON body; an accepted one ends with its head.
            return bytes.text.hasPrefix("HTTP/1.1 101") || bytes.text[end.upperBound...].hasSuffix("}")
        })
        return answer.text
    }

    /// A text frame as a client must not send it: without a masking key.
    static func unmaskedText(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        return [0x81, UInt8(payload.count)] + payload
    }

    /// A masked text frame.
    static func maskedText(_ text: String, key: [UInt8] = [1, 2, 3, 4]) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        let masked = payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        return [0x81, 0x80 | UInt8(payload.count)] + key + masked
    }
}
