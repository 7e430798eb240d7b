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
        // All readers are one user here (one login, a token for every connection): lift the per-user cap.
        let server = try await OutpostServerProcess.launch(arguments: [
            "--port", "0", "--data-dir", directory.path("data"), "--max-sync-connections-per-user", "100000"])
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
                    guard case .download(let download)? = try? ServerMessage(text: text) else { return false }
                    return download.queryVersion == 1 && download.batch == .lastInBatch
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
                    guard case .download(let download) = message else { continue }
                    for case .upsert(_, let pk, _) in download.changesets.flatMap(\.instructions) {
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
            var monotonic = timespec()
            clock_gettime(CLOCK_MONOTONIC, &monotonic)
            recorder.monotonicSent.withLock { $0[id] = Double(monotonic.tv_sec) + Double(monotonic.tv_nsec) / 1e9 }
            writer.send(.upload(session: 1, changesets: [UploadChangeset(
                clientVersion: Int64(i), lastServerVersion: 0, timestamp: 0,
                instructions: [.create(className: "Note", primaryKey: id, fields: ["n": .int(Int64(i))])])]))
            _ = try await writer.next(timeout: .seconds(60)) {
                if case .download(let d) = $0 { d.uploadAck == Int64(i) } else { false }
            }
            let acked = ContinuousClock.now
            recorder.acks.withLock { $0[id] = seconds(acked - recorder.sent.withLock { $0[id]! }) }
        }
        for listener in listeners { await listener.value }
        for reader in bareReaders {
            try await reader.waitFor(timeout: .seconds(120)) { Self.contains($0, lastId) }
            for frame in reader.frames {
                guard case .download(let download)? = try? ServerMessage(text: frame.text) else { continue }
                for case .upsert(_, let pk, _) in download.changesets.flatMap(\.instructions) {
                    if let start = recorder.sent.withLock({ $0[pk] }) {
                        recorder.arrivals.withLock { $0.append(seconds(frame.arrival - start)) }
                        recorder.perChange.withLock { $0[pk, default: []].append(seconds(frame.arrival - start)) }
                    }
                }
            }
            await reader.close()
        }
        for client in clients + [writer] { await client.close() }
        _ = try await server.terminate()
        if ProcessInfo.processInfo.environment["OUTPOST_FANOUT_DETAIL"] != nil {
            printDetail(ids: ids, perChange: recorder.perChange.withLock { $0 }, acks: recorder.acks.withLock { $0 }, sent: recorder.monotonicSent.withLock { $0 })
        }
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

    /// With `OUTPOST_FANOUT_DETAIL` set: how the slow receipts spread over the changes — whether the tail comes
    /// from a few changes that were late for every reader (stalls) or from the last readers of every change.
    static func printDetail(ids: [ObjectId], perChange: [Value: [Double]], acks: [Value: Double], sent: [Value: Double]) {
        let all = perChange.values.flatMap { $0 }
        let p99 = Stats.percentile(all, 99)
        var rows: [(index: Int, min: Double, median: Double, max: Double, slow: Int)] = []
        for (index, id) in ids.enumerated() {
            guard let values = perChange[.objectId(id)], !values.isEmpty else { continue }
            rows.append((index, values.min()!, Stats.percentile(values, 50), values.max()!, values.filter { $0 >= p99 }.count))
        }
        let withSlow = rows.filter { $0.slow > 0 }
        print(String(format: "detail: p99 %.2f ms; %d of %d changes have a receipt at or above it", p99 * 1000,
                     withSlow.count, rows.count))
        for row in withSlow.sorted(by: { $0.slow > $1.slow }).prefix(25) {
            print(String(format: "  change %4d: min %.2f, median %.2f, max %.2f ms, %d receipts ≥ p99; writer's ack %.2f ms; sent at %.6f (CLOCK_MONOTONIC)",
                         row.index, row.min * 1000, row.median * 1000, row.max * 1000, row.slow,
                         (acks[.objectId(ids[row.index])] ?? .nan) * 1000, sent[.objectId(ids[row.index])] ?? .nan))
        }
        let spreads = rows.map { $0.max - $0.min }
        print(String(format: "per-change spread (max − min): p50 %.2f ms, p90 %.2f ms; per-change min: p50 %.2f, p99 %.2f ms",
                     Stats.percentile(spreads, 50) * 1000, Stats.percentile(spreads, 90) * 1000,
                     Stats.percentile(rows.map(\.min), 50) * 1000, Stats.percentile(rows.map(\.min), 99) * 1000))
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.attoseconds) / 1e18 + Double(d.components.seconds)
    }

    final class Recorder: Sendable {
        let sent = Mutex<[Value: ContinuousClock.Instant]>([:])
        let latencies = Mutex<[Double]>([])
        let arrivals = Mutex<[Double]>([])
        let perChange = Mutex<[Value: [Double]]>([:])
        let acks = Mutex<[Value: Double]>([:])
        let monotonicSent = Mutex<[Value: Double]>([:])
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
        _ = try await client.next { if case .download(let d) = $0 { d.queryVersion == 1 && d.batch == .lastInBatch } else { false } }
    }
}
