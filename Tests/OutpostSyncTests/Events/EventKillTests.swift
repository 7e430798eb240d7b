import Foundation
import OutpostCore
import OutpostCoreTesting
import OutpostServer
import OutpostServerTesting
import Testing

/// Issue #5, Reliability: the event library in its own process (`outpost-sync-probe --mode events`), killed with
/// SIGKILL at random points while it records, rotates shards and uploads, against a real `outpost-server` process.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct EventKillTests {
    /// Four runs are killed after a random number of committed scopes (with an 8 KiB shard limit, so shards rotate
    /// and upload all the time); a last run only opens the audited Realm, which uploads every leftover shard.
    /// Afterwards the server holds every event whose commit reported success exactly once, and no event of a
    /// cancelled or failed scope.
    @Test func killedWhileRecordingRotatingAndUploadingLosesNoCommittedEventAndStoresNoneTwice() async throws {
        let directory = try KillTests.temporaryDirectory("events-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("server")
        let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", dataDirectory.path])
        let appId = AppDefinition.developmentAppId
        let root = directory.appendingPathComponent("client")
        func probe(_ run: String, count: Int) throws -> SyncProbeProcess {
            try SyncProbeProcess.launch(arguments: [
                "--mode", "events", "--server", server.baseURL, "--app", appId, "--root", root.path,
                "--count", "\(count)", "--shard-size", "8192", "--run", run, "--upload-timeout", "90",
            ])
        }
        var random = SplitMix64(seed: UInt64(Date().timeIntervalSince1970))
        var committed: Set<String> = []
        var notCommitted: Set<String> = []
        do {
            for round in 0..<4 {
                let process = try probe("r\(round)", count: 120)
                let killAfter = Int(random.next() % 60) + 5
                try await process.waitUntil(timeout: .seconds(90), "\(killAfter) committed scopes") { lines in
                    lines.filter { $0.hasPrefix("committed-scope ") }.count >= killAfter
                }
                await process.killAbruptly()
                for line in process.lines {
                    if line.hasPrefix("committed-scope ") { committed.insert(String(line.dropFirst(16))) }
                    if line.hasPrefix("cancelled ") { notCommitted.insert(String(line.dropFirst(10))) }
                    if line.hasPrefix("failed ") { notCommitted.insert(String(line.dropFirst(7))) }
                    #expect(!line.hasPrefix("error ") && !line.hasPrefix("unexpected-success "), "\(line)")
                }
            }
            let last = try probe("final", count: 0)
            let status = try await last.waitForExit(timeout: .seconds(120))
            #expect(status == 0, "the last run uploads every leftover shard: \(last.standardError)")
            #expect(last.lines.contains("uploaded"))
            _ = try await server.terminate()
        } catch {
            _ = try? await server.terminate()
            throw error
        }

        let storage = try SQLiteStorage(path: dataDirectory.appendingPathComponent("outpost.sqlite").path)
        let documents = try await storage.documents(appId: appId, collection: "AuditEvent")
        try await storage.close()
        let activities = documents.compactMap { document -> String? in
            if case .string(let s)? = document["activity"] { s } else { nil }
        }
        #expect(activities.count == Set(activities).count, "no event is stored twice")
        let missing = committed.subtracting(activities)
        #expect(missing.isEmpty, "committed but lost: \(missing.sorted().prefix(10))")
        #expect(activities.allSatisfy { $0.split(separator: " ").dropFirst().first == "commit" },
                "only committed scopes: \(activities.filter { !$0.contains(" commit ") }.prefix(10))")
        #expect(notCommitted.isDisjoint(with: activities))
        #expect(committed.count >= 20, "the runs committed scopes before their kills (\(committed.count))")
        let shards = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".sqlite") && $0.contains("realm-audit") } ?? []
        #expect(shards.isEmpty, "every shard was deleted: \(shards)")
    }

    /// With no `errorHandler`, a fatal upload error (a metadata field the server's schema lacks, development mode
    /// off) is logged and aborts the process, as the seed page says.
    @Test func fatalUploadErrorWithoutAnErrorHandlerAbortsTheProcess() async throws {
        let appConfig = try strictAuditEventApp(appId: "audit-abort")
        let root = try KillTests.temporaryDirectory("events-abort")
        defer { try? FileManager.default.removeItem(at: root) }
        try await withTestServer(configuration: appConfig) { server in
            let process = try SyncProbeProcess.launch(arguments: [
                "--mode", "events", "--server", server.baseURL, "--app", server.appId, "--root", root.path,
                "--count", "1", "--metadata", "invalid metadata field=x", "--error-handler", "off",
            ])
            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(process.terminatedBySignal && status == SIGABRT, "status \(status): \(process.standardError)")
            #expect(process.lines.contains("committed-scope run commit 0"), "the commit succeeded locally first")
            #expect(process.standardError.contains(
                #"Events: Received sync error: Invalid schema change (UPLOAD): non-breaking schema change: adding "String" column at field "invalid metadata field""#))
        }
    }
}
