import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting

/// A trivial function (`exports = (x) => x`) called over HTTP (`POST …/functions/call`), beside the baseline: a
/// Data API `findOne` by `_id` on the same server, the same user, the same HTTP client. Both are timed one request
/// at a time (latency: p50, p99) and with `concurrency` requests in flight (throughput: requests per second).
enum FunctionsBenchmark {
    struct Side {
        var p50: Double
        var p99: Double
        var perSecond: Double
    }

    static func run(calls: Int, concurrency: Int = 16) async throws -> (function: Side, findOne: Side) {
        let directory = try TemporaryDirectory("functions-bench")
        defer { directory.remove() }
        let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
        var app = AppDefinition.development(appId: "bench-functions")
        app.dataAPI.enabled = true
        app.functions = AppDefinition.Functions(definitions: [.init(name: "echo", source: "exports = (x) => x;")])
        let result = try await withTestServer(configuration: app, storage: storage) { server in
            let login = try await server.client.post(server.clientPath("auth/providers/anon-user/login"))
            guard let token = login["access_token"] else { throw TestServerError(login.text) }
            let findPath = server.clientPath("data/Item/findOne")
            let insert = try await server.client.send(
                "POST", server.clientPath("data/Item/insertOne"), rawBody: #"{"document": {"_id": 1, "name": "x"}}"#,
                bearer: token)
            guard insert.status == 201 else { throw TestServerError("insert: \(insert.status) \(insert.text)") }
            let callPath = server.clientPath("functions/call")
            let callBody = #"{"name": "echo", "arguments": [{"$numberInt": "1"}]}"#
            let findBody = #"{"filter": {"_id": 1}}"#
            func request(_ path: String, _ body: String) async throws {
                let response = try await server.client.send("POST", path, rawBody: body, bearer: token)
                guard response.status == 200 else { throw TestServerError("\(path): \(response.status) \(response.text)") }
            }
            // Warm both paths (the first call starts the workers).
            for _ in 0..<50 {
                try await request(callPath, callBody)
                try await request(findPath, findBody)
            }
            func side(_ path: String, _ body: String) async throws -> Side {
                var latencies: [Double] = []
                latencies.reserveCapacity(calls)
                for _ in 0..<calls {
                    latencies.append(try await Stats.seconds { try await request(path, body) })
                }
                let total = try await Stats.seconds {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for worker in 0..<concurrency {
                            group.addTask {
                                for _ in stride(from: worker, to: calls, by: concurrency) { try await request(path, body) }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                return Side(p50: Stats.percentile(latencies, 50), p99: Stats.percentile(latencies, 99),
                            perSecond: Double(calls) / total)
            }
            // Alternate which goes first, so neither always runs on the warmer machine.
            let function1 = try await side(callPath, callBody)
            let find1 = try await side(findPath, findBody)
            let find2 = try await side(findPath, findBody)
            let function2 = try await side(callPath, callBody)
            func mean(_ a: Side, _ b: Side) -> Side {
                Side(p50: (a.p50 + b.p50) / 2, p99: (a.p99 + b.p99) / 2, perSecond: (a.perSecond + b.perSecond) / 2)
            }
            return (mean(function1, function2), mean(find1, find2))
        }
        try await storage.close()
        return result
    }
}
