import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// The server's memory stays bounded whatever one authenticated request asks for, while another client keeps
/// syncing (docs/server.md, Limits): a real `outpost-server` process, its peak resident memory read from
/// `/proc/<pid>/status`.
@Suite struct BoundedMemoryTests {
    /// The documented bound on the server's peak resident memory in this test (docs/server.md, Limits).
    static let peakBound = 512 * 1024 * 1024

    /// `VmHWM` (peak resident set) of a process, in bytes.
    static func peakResident(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw TestFailure("no VmHWM in /proc/\(pid)/status") }
        return kilobytes * 1024
    }

    @Test func theLargestDataAPIWriteKeepsMemoryBoundedWhileAnotherClientSyncs() async throws {
        try await TemporaryDirectory.with("bounded-memory") { directory in
            let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.path("data")])
            let appId = "outpost-dev"
            func login() async throws -> (token: String, userId: String) {
                try await SyncWebSocketTests.anonymousLogin(server.client, appId: appId)
            }
            let writer = try await login()
            let documents = "[" + (0..<200).map { #"{"_id": \#($0), "n": \#($0)}"# }.joined(separator: ",") + "]"
            let path = "/api/client/v2.0/app/\(appId)/data/Item/"
            let inserted = try await server.client.send("POST", path + "insertMany", rawBody: #"{"documents": \#(documents)}"#,
                                                        bearer: writer.token)
            #expect(inserted.status == 201, "\(inserted.text)")

            // Another user syncs throughout: each upload is acknowledged while the big requests run.
            let syncer = try await login()
            let client = try await SyncTestClient.connect(
                url: "ws://127.0.0.1:\(server.port)/api/client/v2.0/app/\(appId)/realm-sync", accessToken: syncer.token)
            try await SyncWebSocketTests.bindAndSubscribe(client, query: ["Note": "TRUEPREDICATE"])
            let stop = StopFlag()
            let acknowledged = Atomic<Int>(0)
            let syncing = Task {
                var version: Int64 = 0
                while !stop.isSet || version < 3 {
                    version += 1
                    let expected = version
                    client.send(.upload(session: 1, changesets: [UploadChangeset(
                        clientVersion: expected, lastServerVersion: 0, timestamp: Int64(Date().timeIntervalSince1970 * 1000),
                        instructions: [.create(className: "Note", primaryKey: .int(expected), fields: ["text": .string("n")])])]))
                    _ = try await client.next(timeout: .seconds(120)) {
                        if case .download(let d) = $0 { d.uploadAck >= expected } else { false }
                    }
                    acknowledged.store(Int(expected), ordering: .releasing)
                }
                return version
            }

            // 1,800 strings of 1,000 bytes: a body just under the 2 MiB request limit.
            let strings = (0..<1_800).map { _ in "\"" + String(repeating: "x", count: 1_000) + "\"" }.joined(separator: ",")
            let push = #"{"$push": {"arr": {"$each": [\#(strings)]}}}"#
            // Over the write budget (360 MB for all 200 documents): refused, twice.
            for _ in 0..<2 {
                let refused = try await server.client.send("POST", path + "updateMany",
                                                           rawBody: #"{"filter": {}, "update": \#(push)}"#, bearer: writer.token)
                #expect(refused.status == 400 && refused.text.contains("writeTooLarge"), "\(refused.status) \(refused.text)")
            }
            // The largest legal write: 30 documents of 1.8 MB each (54 MB, under the 64 MiB budget).
            let legal = try await server.client.send("POST", path + "updateMany",
                                                     rawBody: #"{"filter": {"n": {"$lt": 30}}, "update": \#(push)}"#,
                                                     bearer: writer.token)
            #expect(legal.status == 200, "\(legal.status) \(legal.text.prefix(300))")
            #expect(try await server.client.get("/health").status == 200)
            // The syncing client's uploads go on being acknowledged (at least three in all, however the machine's
            // load spreads them over the requests).
            stop.set()
            let uploads = try await syncing.value
            #expect(uploads >= 3 && acknowledged.load(ordering: .acquiring) == uploads)
            let peak = try Self.peakResident(server.processIdentifier)
            print("BoundedMemoryTests: peak resident \(peak / 1_048_576) MiB; the syncing client's uploads: \(uploads)")
            #expect(peak < Self.peakBound, "peak resident \(peak / 1_048_576) MiB")
            await client.close()
            #expect(try await server.terminate() == 0)
        }
    }
}

/// Tells a loop in another task to end after its current step.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
