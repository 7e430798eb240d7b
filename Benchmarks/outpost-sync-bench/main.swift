import CSQLite
import Foundation
import Outpost
import OutpostCore
import OutpostServerTesting

// The sync client's speed goals (issue #4), each beside its baseline in the same run:
//   latency   a write on one client → visible in a `Results` on another (library), vs. the same change through
//             bare protocol clients (no client library);
//   upload    100k objects committed and uploaded by one client, vs. the same rows written with the SQLite C API;
//   open      first open with `.always` of a database subscribed to those 100k objects, vs. the same data through
//             raw storage: read from the server's database directly and written into a new file with the SQLite C
//             API (the read alone is printed too, for context; see BENCHMARKS.md on this baseline);
//   events    (issue #5) upload of 100k stored events to the server's AuditEvent collection, vs. inserting the same
//             documents straight into the server's kind of database.
// Usage: outpost-sync-bench [latency|upload|events|all] [objects] [rounds, upload and events]. The server is a separate `outpost-server` process on its
// embedded SQLite default (build it first: swift build -c release --product outpost-server); `upload` rounds start it
// with the app file OUTPOST_SYNC_BENCH_CONFIG names, if set.
let arguments = CommandLine.arguments.dropFirst()
let which = arguments.first ?? "all"
let objects = arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000

final class BenchItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var n: Int
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))]
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-sync-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", directory.appendingPathComponent("data").path])
let baseURL = "http://127.0.0.1:\(server.port)"

func makeApp(_ name: String, baseURL: String = baseURL, root: URL = directory) -> App {
    let app = App(id: "outpost-dev", configuration: AppConfiguration(
        baseURL: baseURL, rootDirectory: root.appendingPathComponent("client-\(name)")))
    app.syncManager.logLevel = .warn
    return app
}

func openSynced(_ app: App, _ file: String, behavior: Realm.OpenBehavior = .never) async throws -> (Realm, User) {
    let user = try await app.login(credentials: .anonymous)
    var config = user.flexibleSyncConfiguration(initialSubscriptions: { subs in subs.append(QuerySubscription<BenchItem>()) })
    config.objectTypes = [BenchItem.self]
    config.fileURL = user.flexibleSyncConfiguration().fileURL!.deletingLastPathComponent().appendingPathComponent(file)
    return (try await Realm(configuration: config, downloadBeforeOpen: behavior), user)
}

if which == "latency" || which == "all" {
    let changes = 1_000
    let app = makeApp("latency")
    let (writer, _) = try await openSynced(app, "writer.realm", behavior: .always)
    // The reader lives on its own queue; its notification block records when each object became visible.
    let queue = DispatchQueue(label: "reader")
    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var at: [ObjectId: ContinuousClock.Instant] = [:]
        func withLock<T>(_ body: (inout [ObjectId: ContinuousClock.Instant]) -> T) -> T { lock.withLock { body(&at) } }
    }
    let seen = Seen()
    let readerBox: (Realm, NotificationToken) = try await withCheckedThrowingContinuation { c in
        queue.async {
            do {
                let user = app.currentUser!
                var config = user.flexibleSyncConfiguration(initialSubscriptions: { s in s.append(QuerySubscription<BenchItem>()) })
                config.objectTypes = [BenchItem.self]
                config.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("reader.realm")
                let realm = try Realm(configuration: config, queue: queue)
                let results = realm.objects(BenchItem.self)
                let token = results.observe(on: nil) { change in
                    guard case .update(let items, _, let insertions, _) = change else { return }
                    let now = ContinuousClock.now
                    seen.withLock { at in for i in insertions { at[items[i]._id] = now } }
                }
                c.resume(returning: (realm, token))
            } catch { c.resume(throwing: error) }
        }
    }
    try await Task.sleep(for: .seconds(2))
    var latencies: [Double] = []
    for i in 0..<changes {
        let item = BenchItem()
        item.name = "latency \(i)"
        item.n = i
        let id = item._id
        let start = ContinuousClock.now
        try writer.write { writer.add(item) }
        while seen.withLock({ $0[id] }) == nil { try await Task.sleep(for: .microseconds(200)) }
        latencies.append(seconds(seen.withLock { $0[id]! } - start))
    }
    _ = readerBox
    print(String(format: "library: p50 %.2f ms, p99 %.2f ms", percentile(latencies, 50) * 1000, percentile(latencies, 99) * 1000))
    let baseline = try await protocolBaseline(server: server, changes: changes)
    print(String(format: "latency write → visible in another client's Results, %d writes: p50 %.2f ms (goal ≤ 10), p99 %.2f ms (goal ≤ 40); "
                 + "baseline (bare protocol clients) p50 %.2f ms, p99 %.2f ms; ratio p50 %.2f×",
                 changes, percentile(latencies, 50) * 1000, percentile(latencies, 99) * 1000,
                 percentile(baseline, 50) * 1000, percentile(baseline, 99) * 1000,
                 percentile(latencies, 50) / percentile(baseline, 50)))
    for u in app.allUsers.values where u.isLoggedIn { try await u.logOut() }
}

/// The same single-object change between two bare protocol clients (no client library). Not main-actor isolated:
/// the protocol client calls its predicates from its own actor.
nonisolated func protocolBaseline(server: OutpostServerProcess, changes: Int) async throws -> [Double] {
    let login = try await server.client.post("/api/client/v2.0/app/outpost-dev/auth/providers/anon-user/login")
    let token = login["access_token"]!
    let url = "ws://127.0.0.1:\(server.port)/api/client/v2.0/app/outpost-dev/realm-sync"
    let a = try await SyncTestClient.connect(url: url, accessToken: token)
    let b = try await SyncTestClient.connect(url: url, accessToken: token)
    for c in [a, b] {
        c.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
        c.send(.query(session: 1, subscriptions: SubscriptionQuery(version: 1, queries: ["Note": "TRUEPREDICATE"])))
        _ = try await c.next(timeout: .seconds(30)) { if case .download(let d) = $0 { d.queryVersion == 1 && d.batch == .lastInBatch } else { false } }
    }
    var baseline: [Double] = []
    for i in 1...changes {
        let id = Value.objectId(ObjectId.generate())
        let start = ContinuousClock.now
        a.send(.upload(session: 1, changesets: [UploadChangeset(clientVersion: Int64(i), lastServerVersion: 0, timestamp: 0,
            instructions: [.create(className: "Note", primaryKey: id, fields: ["n": .int(Int64(i))])])]))
        _ = try await b.next(timeout: .seconds(30)) {
            if case .download(let d) = $0 { d.changesets.contains { $0.instructions.contains { $0.primaryKey == id } } } else { false }
        }
        baseline.append(seconds(ContinuousClock.now - start))
    }
    await a.close()
    await b.close()
    return baseline
}

if which == "upload" || which == "all" {
    // `upload <objects> <rounds>`: each round is the whole story on a server of its own (a new process and data
    // directory): baseline, upload, first open and its baselines. With more than one round, the medians follow.
    let rounds = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1
    var results: [UploadRound] = []
    for round in 0..<rounds {
        let roundDirectory = directory.appendingPathComponent("upload-round-\(round)")
        // OUTPOST_SYNC_BENCH_CONFIG names an app file for the round's server (say, one with named queryable fields,
        // which storage indexes; the development app's `*` creates no field index).
        let config = ProcessInfo.processInfo.environment["OUTPOST_SYNC_BENCH_CONFIG"].map { ["--config", $0] } ?? []
        let roundServer = try await OutpostServerProcess.launch(
            arguments: ["--port", "0", "--data-dir", roundDirectory.appendingPathComponent("data").path] + config)
        let result = try await UploadRound.run(objects: objects, server: roundServer, directory: roundDirectory)
        _ = try await roundServer.terminate()
        try? FileManager.default.removeItem(at: roundDirectory)
        results.append(result)
        result.report(objects: objects, round: round)
    }
    if rounds > 1 {
        let upload = percentile(results.map { $0.upload / $0.baseline }, 50)
        var line = String(format: "upload: median ratio of %d rounds %.2f× (goal ≤ 3×)", rounds, upload)
        let opens = results.compactMap { $0.open }
        if opens.count == rounds {
            line += String(format: "; first open .always: median ratio %.2f× (goal ≤ 3×), against the read alone %.2f×",
                           percentile(opens.map { $0.seconds / $0.copyBaseline }, 50),
                           percentile(opens.map { $0.seconds / $0.readBaseline }, 50))
        }
        print(line)
    }
}

/// A size line of /proc/self/status (`VmRSS`, `VmHWM`) in kB; nil where there is none (not Linux).
func kilobytes(_ key: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
    else { return nil }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
}

/// The CPU time a process has used so far (all its threads, user and system), from /proc/<pid>/stat in clock
/// ticks (10 ms); nil where there is none (not Linux).
func cpuSeconds(pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    // After the command name in parentheses: state is field 3; utime and stime are fields 14 and 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Reads BenchItem's stored rows from the server's database and inserts them into a new table of another file, in
/// one transaction, with the same durability settings as the other baselines.
func copyRowsBaseline(from serverPath: String, to path: String) throws -> (seconds: Double, rows: Int) {
    var source: OpaquePointer?
    var target: OpaquePointer?
    sqlite3_open_v2(serverPath, &source, SQLITE_OPEN_READONLY, nil)
    sqlite3_open(path, &target)
    defer {
        sqlite3_close(source)
        sqlite3_close(target)
    }
    sqlite3_exec(target, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE items (pk TEXT PRIMARY KEY, body TEXT)", nil, nil, nil)
    var read: OpaquePointer?
    var insert: OpaquePointer?
    sqlite3_prepare_v2(source, "SELECT pk_key, body FROM documents WHERE collection = 'BenchItem'", -1, &read, nil)
    sqlite3_prepare_v2(target, "INSERT INTO items VALUES (?, ?)", -1, &insert, nil)
    defer {
        sqlite3_finalize(read)
        sqlite3_finalize(insert)
    }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let start = ContinuousClock.now
    var rows = 0
    sqlite3_exec(target, "BEGIN", nil, nil, nil)
    while sqlite3_step(read) == SQLITE_ROW {
        sqlite3_bind_text(insert, 1, sqlite3_column_text(read, 0), sqlite3_column_bytes(read, 0), transient)
        sqlite3_bind_text(insert, 2, sqlite3_column_text(read, 1), sqlite3_column_bytes(read, 1), transient)
        guard sqlite3_step(insert) == SQLITE_DONE else {
            throw BenchError("copy baseline: insert failed: \(String(cString: sqlite3_errmsg(target)))")
        }
        sqlite3_reset(insert)
        rows += 1
    }
    guard sqlite3_exec(target, "COMMIT", nil, nil, nil) == SQLITE_OK else { throw BenchError("copy baseline: commit failed") }
    return (seconds(ContinuousClock.now - start), rows)
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
if which == "events" || which == "all" {
    // `events <count> <rounds>`: each round uploads its own events (the server's collection grows round by round).
    let rounds = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1
    var ratios: [Double] = []
    for round in 0..<rounds {
        let roundDirectory = directory.appendingPathComponent("events-round-\(round)")
        try FileManager.default.createDirectory(at: roundDirectory, withIntermediateDirectories: true)
        let (outpost, baseline) = try await EventUploadBenchmark.run(count: objects, baseURL: baseURL, directory: roundDirectory)
        ratios.append(outpost / baseline)
        print(String(format: "upload %d stored events: outpost %.2f s, baseline (insert into the server's database) %.2f s, ratio %.2f× (goal ≤ 3×)",
                     objects, outpost, baseline, outpost / baseline))
    }
    if rounds > 1 { print(String(format: "events: median ratio of %d rounds %.2f×", rounds, percentile(ratios, 50))) }
}
_ = try await server.terminate()
