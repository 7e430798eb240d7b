import CSQLite
import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// A numbered object, for the server-kill test.
final class NumberedItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var number: Int
    @Persisted var payload: String
}

/// kill -9 (issue #4, Reliability), against real `outpost-server` processes with SQLite data directories: a client
/// process killed while uploading, and the server killed while ingesting. Afterwards nothing committed locally is
/// lost and nothing is applied twice.
@Suite(.serialized, .timeLimit(.minutes(3))) struct KillTests {
    /// The probe (Sources/outpost-sync-probe, a client in its own process) commits numbered objects one transaction
    /// each and is killed with SIGKILL three times — right after it opened its file (while it binds), and twice
    /// once the server has acknowledged some of the transactions of that run — and started again each time; a last
    /// run only syncs. The server then holds every number the probe printed as committed, each once, in one history
    /// changeset per committed transaction.
    @Test func clientKilledWhileUploadingLosesNothingAndAppliesNothingTwice() async throws {
        let directory = try Self.temporaryDirectory("client-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("server")
        let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", dataDirectory.path])
        do {
            let root = directory.appendingPathComponent("probe")
            let appId = AppDefinition.developmentAppId
            var printed: [Int] = []
            for run in 0..<3 {
                // More commits than a run can make before the kill: uploads now go out while the probe commits, and
                // on a busy machine the acknowledgement the kill waits for may come late.
                let probe = try SyncProbeProcess.launch(server: server.baseURL, appId: appId, root: root, count: 50_000)
                let start = try await Self.startOfRun(probe)
                if run == 0 {
                    try await probe.waitUntil("its file is open") { $0.contains { $0.hasPrefix("local ") } }
                } else {
                    // Kill it while uploads are under way: some transactions of this run acknowledged, more committed.
                    try await probe.waitUntil("300 commits and an acknowledgement") { lines in
                        lines.contains("committed \(start + 299)") && lines.contains("acknowledged run")
                    }
                }
                await probe.killAbruptly()
                let numbers = probe.committedNumbers
                #expect(numbers == Array(start..<start + numbers.count), "run \(run) commits \(start), \(start + 1), …")
                #expect(!probe.lines.contains("uploaded"), "run \(run) was killed before its upload completed")
                printed += numbers
            }

            let last = try SyncProbeProcess.launch(server: server.baseURL, appId: appId, root: root, count: 0)
            let status = try await last.waitForExit()
            #expect(status == 0, "the last run failed: \(last.standardError)")
            #expect(last.lines.contains("uploaded"))
            #expect(last.committedNumbers.isEmpty)
            let local = try #require(last.localLines.last)
            // Each kill may have come between a commit and its line: at most one unprinted object per kill.
            #expect(local.max == local.count - 1, "the file holds 0…\(local.max) without gaps")
            #expect(Set(printed).isSubset(of: 0..<local.count) && local.count <= printed.count + 3,
                    "the file holds \(local.count) objects, \(printed.count) were printed as committed")

            try await server.terminate()
            try await Self.expectServerHoldsNumbers(0..<local.count, collection: "ProbeItem", dataDirectory: dataDirectory)
        } catch {
            _ = try? await server.terminate()
            throw error
        }
    }

    /// A client process is killed (SIGKILL) while it applies a bootstrap as it arrives (`BootstrapStream`): the probe
    /// kills itself once the stream has written a batch and before it commits (so the kill does not depend on how
    /// fast this process notices). Its file holds none of the bootstrap afterwards, and the next run downloads the
    /// whole bootstrap again and holds every object once.
    @Test func clientKilledWhileStreamingABootstrapKeepsNoneOfIt() async throws {
        let directory = try Self.temporaryDirectory("stream-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir",
                                                                       directory.appendingPathComponent("server").path])
        do {
            let appId = AppDefinition.developmentAppId
            // 20,000 objects on the server, uploaded by a client in this process.
            let app = App(id: appId, configuration: AppConfiguration(
                baseURL: server.baseURL, rootDirectory: directory.appendingPathComponent("writer")))
            let user = try await app.login(credentials: .anonymous)
            var config = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
                subscriptions.append(QuerySubscription<ProbeItem>(name: "all"))
            })
            config.objectTypes = [ProbeItem.self]
            let writer = try await Realm(configuration: config)
            for chunk in 0..<4 {
                try writer.write {
                    for n in chunk * 5_000..<(chunk + 1) * 5_000 {
                        let item = ProbeItem()
                        item.number = n
                        item.payload = "item \(n)"
                        writer.add(item)
                    }
                }
            }
            let session = try #require(writer.syncSession)
            try await withDeadline(.seconds(120), "the upload") { try await session.wait(for: .upload) }

            let root = directory.appendingPathComponent("probe")
            let arguments = ["--server", server.baseURL, "--app", appId, "--root", root.path, "--mode", "bootstrap"]
            let first = try SyncProbeProcess.launch(arguments: arguments + ["--kill-while-streaming", "on"])
            _ = try await first.waitForExit()
            #expect(first.terminatedBySignal && first.lines.contains("streaming") && first.lines.contains("killing"),
                    "the first run: \(first.lines), \(first.standardError.suffix(2_000))")
            let path = try #require(first.lines.first { $0.hasPrefix("file ") }).dropFirst("file ".count)
            var db: OpaquePointer?
            #expect(sqlite3_open_v2(String(path), &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
            var stmt: OpaquePointer?
            #expect(sqlite3_prepare_v2(db, "SELECT count(*) FROM ProbeItem", -1, &stmt, nil) == SQLITE_OK)
            #expect(sqlite3_step(stmt) == SQLITE_ROW)
            #expect(sqlite3_column_int64(stmt, 0) == 0, "objects of the killed bootstrap in the file")
            sqlite3_finalize(stmt)
            sqlite3_close(db)

            let second = try SyncProbeProcess.launch(arguments: arguments)
            let status = try await second.waitForExit()
            #expect(status == 0, "the second run failed: \(second.standardError)")
            #expect(second.lines.contains("streaming"))
            #expect(second.localLines.last.map { $0.count == 20_000 && $0.max == 19_999 } == true,
                    "the second run's file: \(second.lines.filter { $0.hasPrefix("local") })")
            withExtendedLifetime(writer) {}
            try await server.terminate()
        } catch {
            _ = try? await server.terminate()
            throw error
        }
    }

    /// The first number a probe run commits: one more than the highest in its file (its `local` line).
    static func startOfRun(_ probe: SyncProbeProcess) async throws -> Int {
        try await probe.waitUntil("its local line") { $0.contains { $0.hasPrefix("local ") } }
        return try #require(probe.localLines.first).max + 1
    }

    /// A client in this process commits numbered objects, one transaction each; the server process is killed with
    /// SIGKILL while it integrates them, the client goes on committing offline, and the server is started again on
    /// the same data directory and port. The client reconnects by itself; afterwards the server holds every
    /// committed object once, in one history changeset per transaction, and the client equals the server.
    @Test func serverKilledWhileIngestingLosesNothingAndAppliesNothingTwice() async throws {
        let directory = try Self.temporaryDirectory("server-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("server")
        var server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", dataDirectory.path])
        let port = server.port
        let clientRoot = directory.appendingPathComponent("client")
        let app = App(id: AppDefinition.developmentAppId,
                      configuration: AppConfiguration(baseURL: server.baseURL, rootDirectory: clientRoot))
        let reports = SyncReports()
        reports.install(on: app)
        var user: User?
        do {
            let loggedIn = try await app.login(credentials: .anonymous)
            user = loggedIn
            let configuration = numberedItemsConfiguration(loggedIn)
            let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .always)
            let session = realm.syncSession!
            // Upload progress in bytes: acknowledged, and acknowledged + queued (the latest report).
            let acknowledged = LockedValue(0)
            let latest = LockedValue((transferred: 0, transferrable: 0))
            let token = session.addProgressNotification(for: .upload, mode: .reportIndefinitely) { progress in
                acknowledged.withLock { $0 = max($0, progress.transferredBytes) }
                latest.withLock { $0 = (progress.transferredBytes, progress.transferrableBytes) }
            }
            defer { token?.invalidate() }

            let payload = String(repeating: "y", count: 200)
            func commit(_ numbers: Range<Int>) throws {
                for n in numbers {
                    let item = NumberedItem()
                    item.number = n
                    item.payload = payload
                    try realm.write { realm.add(item) }
                }
            }
            let total = 3_000
            var committed = 0
            var kills = 0
            // Two crashes: one while the first uploads stream in, one while the backlog is re-uploaded.
            for round in 0..<2 {
                try commit(committed..<committed + 500)
                committed += 500
                let before = acknowledged.withLock { $0 }
                try await eventually(timeout: testPatience * 2, "round \(round): the server integrates uploads") {
                    acknowledged.withLock { $0 } > before
                }
                try commit(committed..<committed + 200)  // keep uploads flowing while the server dies
                committed += 200
                try await server.killAbruptly()
                kills += 1
                // Nothing is acknowledged after the kill: the reports settle with bytes still queued.
                try await eventually(timeout: testPatience * 2, "round \(round): the kill came while the server was ingesting") {
                    latest.withLock { $0.transferred < $0.transferrable }
                }
                // Generous: with the whole suite running on two cores, the session's task may wait its turn a while.
                try await eventually(timeout: testPatience * 2, "round \(round): the client notices the crash") {
                    session.connectionState != .connected
                }
                try commit(committed..<committed + 300)  // offline
                committed += 300
                server = try await Self.relaunch(dataDirectory: dataDirectory, port: port)
            }
            #expect(kills == 2)
            try commit(committed..<total)
            committed = total

            try await withDeadline(.seconds(60), "the upload after the restarts") { try await session.wait(for: .upload) }
            try await withDeadline(.seconds(30), "the download after the restarts") { try await session.wait(for: .download) }
            realm.refresh()
            let local = realm.objects(NumberedItem.self).map(\.number).sorted()
            #expect(local == Array(0..<total))
            #expect(reports.errors.isEmpty, "unexpected sync errors: \(reports.errors)")
            try await loggedIn.logOut()
            user = nil
            try await server.terminate()
            try await Self.expectServerHoldsNumbers(0..<total, collection: "NumberedItem", dataDirectory: dataDirectory)
        } catch {
            try? await user?.logOut()
            _ = try? await server.terminate()
            throw error
        }
    }

    // MARK: Support

    /// A value shared with callbacks on other threads.
    final class LockedValue<T: Sendable>: @unchecked Sendable {  // `value` is behind `lock`
        private let lock = NSLock()
        private var value: T
        init(_ value: T) { self.value = value }
        func withLock<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&value) } }
    }

    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts the server again on its data directory and port (the client's App knows only that URL). The port
    /// may take a moment to be free after the crash.
    static func relaunch(dataDirectory: URL, port: Int) async throws -> OutpostServerProcess {
        var lastError: Error?
        for _ in 0..<50 {
            do {
                return try await OutpostServerProcess.launch(
                    arguments: ["--port", "\(port)", "--data-dir", dataDirectory.path], timeout: .seconds(30))
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError ?? TestServerError("cannot restart the server")
    }

    /// Reads the stopped server's SQLite database: the collection holds exactly the objects numbered `numbers`,
    /// one document each, and the history has exactly one changeset per committed client transaction (each
    /// transaction created one object), none integrated twice.
    static func expectServerHoldsNumbers(_ numbers: Range<Int>, collection: String, dataDirectory: URL,
                                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let storage = try SQLiteStorage(path: dataDirectory.appendingPathComponent("outpost.sqlite").path)
        do {
            let appId = AppDefinition.developmentAppId
            let documents = try await storage.documents(appId: appId, collection: collection)
            let held = documents.compactMap { document -> Int? in
                if case .int(let n)? = document["number"] { return Int(n) }
                return nil
            }
            #expect(held.count == documents.count, "every document has a number", sourceLocation: sourceLocation)
            #expect(held.count == Set(held).count, "no number is held twice", sourceLocation: sourceLocation)
            let missing = Set(numbers).subtracting(held).sorted()
            let extra = Set(held).subtracting(numbers).sorted()
            #expect(missing.isEmpty && extra.isEmpty,
                    "lost: \(missing.prefix(20)) (\(missing.count)); unexpected: \(extra.prefix(20)) (\(extra.count))",
                    sourceLocation: sourceLocation)

            let latest = try await storage.latestServerVersion(appId: appId)
            let history = try await storage.changesets(appId: appId, after: 0, upTo: latest, limit: Int(latest) + 1)
            let uploads = history.filter { $0.draft.originFileIdent != 0 && $0.draft.changes.contains { $0.collection == collection } }
            let versions = uploads.map { "\($0.draft.originFileIdent)/\($0.draft.originClientVersion)" }
            #expect(versions.count == Set(versions).count, "no client transaction is integrated twice",
                    sourceLocation: sourceLocation)
            #expect(uploads.count == numbers.count, "one history changeset per committed transaction",
                    sourceLocation: sourceLocation)
            #expect(uploads.allSatisfy { $0.draft.changes.count == 1 && $0.draft.changes[0].before == nil },
                    "each changeset creates its object", sourceLocation: sourceLocation)
        } catch {
            try? await storage.close()
            throw error
        }
        try await storage.close()
    }
}
