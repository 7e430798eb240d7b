import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Synchronization

/// `readers` subscribed clients; one writer commits `changes` single-document changes one after another; for every
/// change and reader, the time from the writer sending the upload to the reader receiving the download (its frame
/// arriving, and — with `decodeLive` — the test client having decoded it). The server is a separate
/// `outpost-server` process on its embedded SQLite default.
///
/// Without `decodeLive` the readers are bare WebSocket readers (``FrameReader``) that only keep each frame's text
/// and arrival time while the writer runs, and everything is decoded afterwards: the 100 readers share the
/// machine's two cores with the server, and as `SyncTestClient`s (async sequences, an actor hop and a decode per
/// frame) they took more CPU than the server's whole fan-out.
enum FanOutBenchmark {
    /// Returns the latencies to the decoded message (empty without `decodeLive`) and to the frame's arrival at the
    /// reader.
    static func run(readers: Int, changes: Int, decodeLive: Bool) async throws -> (decoded: [Double], arrived: [Double]) {
        let directory = try TemporaryDirectory("fanout")
        defer { directory.remove() }
        let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.path("data")])
        defer { _ = Task { try? await server.terminate() } }
        let login = try await server.client.post("/api/client/v2.0/app/outpost-dev/auth/providers/anon-user/login")
        guard let token = login["access_token"] else { throw TestServerError(login.text) }
        let url = "ws://127.0.0.1:\(server.port)/api/client/v2.0/app/outpost-dev/realm-sync"

        let recorder = Recorder()
        // The changes' primary keys, known up front so a reader that does not decode can tell its last frame.
        let ids = (0..<changes).map { _ in ObjectId.generate() }
        let lastId = Array(ids.last!.stringValue.utf8)
        var clients: [SyncTestClient] = []
        var bareReaders: [FrameReader] = []
        for _ in 0..<readers {
            if decodeLive {
                let client = try await SyncTestClient.connect(url: url, accessToken: token)
                try await subscribe(client)
                clients.append(client)
            } else {
                let reader = try await FrameReader.connect(
                    host: "127.0.0.1", port: server.port, path: "/api/client/v2.0/app/outpost-dev/realm-sync",
                    token: token, messages: subscribeMessages.map(\.text))
                try await reader.waitFor(timeout: .seconds(30)) { text in
                    guard case .download(_, _, _, _, 1, .lastInBatch, _)? = try? ServerMessage(text: text) else { return false }
                    return true
                }
                bareReaders.append(reader)
            }
        }
        let listeners = clients.map { client in
            Task {
                var seen = 0
                while seen < changes {
                    guard let (message, arrival) = try? await client.nextWithArrival(timeout: .seconds(120)) else { return }
                    let now = ContinuousClock.now
                    guard case .download(_, _, _, _, _, _, let changesets) = message else { continue }
                    for case .upsert(_, let pk, _) in changesets.flatMap(\.instructions) {
                        if let start = recorder.sent.withLock({ $0[pk] }) {
                            recorder.latencies.withLock { $0.append(seconds(now - start)) }
                            recorder.arrivals.withLock { $0.append(seconds(arrival - start)) }
                            seen += 1
                        }
                    }
                }
            }
        }
        let writer = try await SyncTestClient.connect(url: url, accessToken: token)
        try await subscribe(writer)
        for i in 1...changes {
            let id = Value.objectId(ids[i - 1])
            recorder.sent.withLock { $0[id] = ContinuousClock.now }
            writer.send(.upload(session: 1, changesets: [UploadChangeset(
                clientVersion: Int64(i), lastServerVersion: 0, timestamp: 0,
                instructions: [.create(className: "Note", primaryKey: id, fields: ["n": .int(Int64(i))])])]))
            _ = try await writer.next(timeout: .seconds(60)) {
                if case .download(_, _, _, let ack, _, _, _) = $0 { ack == Int64(i) } else { false }
            }
        }
        for listener in listeners { await listener.value }
        for reader in bareReaders {
            try await reader.waitFor(timeout: .seconds(120)) { Self.contains($0, lastId) }
            for frame in reader.frames {
                guard case .download(_, _, _, _, _, _, let changesets)? = try? ServerMessage(text: frame.text) else { continue }
                for case .upsert(_, let pk, _) in changesets.flatMap(\.instructions) {
                    if let start = recorder.sent.withLock({ $0[pk] }) {
                        recorder.arrivals.withLock { $0.append(seconds(frame.arrival - start)) }
                    }
                }
            }
            await reader.close()
        }
        for client in clients + [writer] { await client.close() }
        _ = try await server.terminate()
        return (recorder.latencies.withLock { $0 }, recorder.arrivals.withLock { $0 })
    }

    /// Whether `text`'s UTF-8 holds `needle` (a byte search: Foundation's `contains` is slow on Linux).
    static func contains(_ text: String, _ needle: [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
                if (1..<needle.count).allSatisfy({ bytes[start + $0] == needle[$0] }) { return true }
            }
            return false
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.attoseconds) / 1e18 + Double(d.components.seconds)
    }

    final class Recorder: Sendable {
        let sent = Mutex<[Value: ContinuousClock.Instant]>([:])
        let latencies = Mutex<[Double]>([])
        let arrivals = Mutex<[Double]>([])
    }

    /// A reader's opening messages: bind a flexible session, then subscribe to every `Note`.
    static let subscribeMessages: [ClientMessage] = [
        .bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil),
        .query(session: 1, subscriptions: SubscriptionQuery(version: 1, queries: ["Note": "TRUEPREDICATE"])),
    ]

    static func subscribe(_ client: SyncTestClient) async throws {
        client.send(subscribeMessages[0])
        _ = try await client.next { if case .download = $0 { true } else { false } }
        client.send(subscribeMessages[1])
        _ = try await client.next { if case .download(_, _, _, _, 1, .lastInBatch, _) = $0 { true } else { false } }
    }
}
