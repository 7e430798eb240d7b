import Foundation
import OutpostServerTesting
import Testing

/// Connections that each send most of one large WebSocket frame and never finish it hold at most that frame each
/// in a real `outpost-server` process, and give the memory back when they close (its resident set, from
/// `/proc/<pid>/status`).
@Suite struct UnfinishedFrameMemoryTests {
    static func residentMiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes / 1024
    }

    @Test func unfinishedFramesAreBoundedAndReturned() async throws {
        try await TemporaryDirectory.with("frames") { directory in
            let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.url.path])
            do {
                try await Self.measure(server)
            } catch {
                _ = try? await server.terminate()
                throw error
            }
            #expect(try await server.terminate() == 0)
        }
    }

    static func measure(_ server: OutpostServerProcess) async throws {
        do {
            let login = try await server.client.post("/api/client/v2.0/app/outpost-dev/auth/providers/anon-user/login")
            let token = try #require(login["access_token"])
            let baseline = try residentMiB(server.processIdentifier)
            let frameLength = 15 * 1024 * 1024
            // A masked text frame header declaring 15 MiB + 1 byte; 15 MiB of payload follow, the last byte never.
            var header: [UInt8] = [0x81, 0x80 | 127]
            header += (0..<8).reversed().map { UInt8(((frameLength + 1) >> ($0 * 8)) & 0xFF) }
            header += [1, 2, 3, 4]
            let chunk = [UInt8](repeating: 0x61, count: 1024 * 1024)
            var connections: [LoopbackConnection] = []
            for _ in 0..<10 {
                let connection = try LoopbackConnection(port: server.port)
                connection.send(
                    "GET /api/client/v2.0/app/outpost-dev/realm-sync HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        + "Sec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n")
                let answer = try await connection.read(until: { $0.text.contains("\r\n\r\n") })
                try #require(answer.text.hasPrefix("HTTP/1.1 101"), "\(answer.text)")
                connection.send(header)
                for _ in 0..<15 { connection.send(chunk) }
                connections.append(connection)
            }
            try await Task.sleep(for: .seconds(2))
            let loaded = try residentMiB(server.processIdentifier)
            for connection in connections { connection.close() }
            var after = loaded
            for _ in 0..<50 {
                try await Task.sleep(for: .milliseconds(200))
                after = try residentMiB(server.processIdentifier)
                if after - baseline < 64 { break }
            }
            print("unfinished frames: baseline \(baseline) MiB, 10 × 15 MiB held \(loaded) MiB, closed \(after) MiB")
            #expect(loaded - baseline <= 10 * 40, "at most one frame (and its growth) per connection")
            #expect(after - baseline < 64, "memory given back: baseline \(baseline) MiB, after close \(after) MiB")
        }
    }
}
