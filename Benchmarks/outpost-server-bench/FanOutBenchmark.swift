import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Synchronization

/// `readers` subscribed clients; one writer commits `changes` single-document changes one after another; for every
/// change and reader, the time from the writer sending the upload to the reader receiving the download (its frame
/// arriving, and the test client having decoded it). The server is a separate `outpost-server` process on its
/// embedded SQLite default.
enum FanOutBenchmark {
    /// Returns the latencies to the decoded message (what the test reads) and to the frame's arrival at the reader
    /// (before the test client decodes it).
    static func run(readers: Int, changes: Int) async throws -> (decoded: [Double], arrived: [Double]) {
        let directory = try TemporaryDirectory("fanout")
        defer { directory.remove() }
        let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.path("data")])
        defer { _ = Task { try? await server.terminate() } }
        let login = try await server.client.post("/api/client/v2.0/app/outpost-dev/auth/providers/anon-user/login")
        guard let token = login["access_token"] else { throw TestServerError(login.text) }
        let url = "ws://127.0.0.1:\(server.port)/api/client/v2.0/app/outpost-dev/realm-sync"

        let recorder = Recorder()
        var clients: [SyncTestClient] = []
        for _ in 0..<readers {
            let client = try await SyncTestClient.connect(url: url, accessToken: token)
            try await subscribe(client)
            clients.append(client)
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
            let id = Value.objectId(ObjectId.generate())
            recorder.sent.withLock { $0[id] = ContinuousClock.now }
            writer.send(.upload(session: 1, changesets: [UploadChangeset(
                clientVersion: Int64(i), lastServerVersion: 0, timestamp: 0,
                instructions: [.create(className: "Note", primaryKey: id, fields: ["n": .int(Int64(i))])])]))
            _ = try await writer.next(timeout: .seconds(60)) {
                if case .download(_, _, _, let ack, _, _, _) = $0 { ack == Int64(i) } else { false }
            }
        }
        for listener in listeners { await listener.value }
        for client in clients + [writer] { await client.close() }
        _ = try await server.terminate()
        return (recorder.latencies.withLock { $0 }, recorder.arrivals.withLock { $0 })
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.attoseconds) / 1e18 + Double(d.components.seconds)
    }

    final class Recorder: Sendable {
        let sent = Mutex<[Value: ContinuousClock.Instant]>([:])
        let latencies = Mutex<[Double]>([])
        let arrivals = Mutex<[Double]>([])
    }

    static func subscribe(_ client: SyncTestClient) async throws {
        client.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
        _ = try await client.next { if case .download = $0 { true } else { false } }
        client.send(.query(session: 1, subscriptions: SubscriptionQuery(version: 1, queries: ["Note": "TRUEPREDICATE"])))
        _ = try await client.next { if case .download(_, _, _, _, 1, .lastInBatch, _) = $0 { true } else { false } }
    }
}
