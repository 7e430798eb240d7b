import CSQLite
import Foundation
import Outpost
import OutpostServerTesting

// The sync client's speed goals (issue #4), each beside its baseline in the same run:
//   latency   a write on one client → visible in a `Results` on another (library), vs. the same change through
//             bare protocol clients (no client library);
//   upload    100k objects committed and uploaded by one client, vs. the same rows written with the SQLite C API;
//   open      first open with `.always` of a database subscribed to those 100k objects, vs. reading them from the
//             server's database directly;
//   events    (issue #5) upload of 100k stored events to the server's AuditEvent collection, vs. inserting the same
//             documents straight into the server's kind of database.
// Usage: outpost-sync-bench [latency|upload|events|all] [objects] [rounds, events only]. The server is a separate `outpost-server` process on its
// embedded SQLite default (build it first: swift build -c release --product outpost-server).
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

func makeApp(_ name: String) -> App {
    let app = App(id: "outpost-dev", configuration: AppConfiguration(
        baseURL: baseURL, rootDirectory: directory.appendingPathComponent("client-\(name)")))
    app.syncManager.logLevel = .warn
    return app
}

func openSynced(_ app: App, _ file: String, behavior: OpenBehavior = .never) async throws -> (Realm, User) {
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
        _ = try await c.next(timeout: .seconds(30)) { if case .download(_, _, _, _, 1, .lastInBatch, _) = $0 { true } else { false } }
    }
    var baseline: [Double] = []
    for i in 1...changes {
        let id = Value.objectId(ObjectId.generate())
        let start = ContinuousClock.now
        a.send(.upload(session: 1, changesets: [UploadChangeset(clientVersion: Int64(i), lastServerVersion: 0, timestamp: 0,
            instructions: [.create(className: "Note", primaryKey: id, fields: ["n": .int(Int64(i))])])]))
        _ = try await b.next(timeout: .seconds(30)) {
            if case .download(_, _, _, _, _, _, let cs) = $0 { cs.contains { $0.instructions.contains { $0.primaryKey == id } } } else { false }
        }
        baseline.append(seconds(ContinuousClock.now - start))
    }
    await a.close()
    await b.close()
    return baseline
}

if which == "upload" || which == "all" {
    let perTransaction = 1_000
    // Baseline first, while nothing else runs (the server's WAL checkpoint after the upload would slow it): the same
    // rows with the SQLite C API, in the same number of transactions.
    let baselinePath = directory.appendingPathComponent("baseline.sqlite").path
    var db: OpaquePointer?
    sqlite3_open(baselinePath, &db)
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE items (_id BLOB PRIMARY KEY, name TEXT, n INTEGER)", nil, nil, nil)
    var stmt: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO items VALUES (?, ?, ?)", -1, &stmt, nil)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    let baselineStart = ContinuousClock.now
    var m = 0
    while m < objects {
        sqlite3_exec(db, "BEGIN", nil, nil, nil)
        for _ in 0..<min(perTransaction, objects - m) {
            let id = ObjectId.generate().bytes
            sqlite3_bind_blob(stmt, 1, id, Int32(id.count), transient)
            sqlite3_bind_text(stmt, 2, "object \(m)", -1, transient)
            sqlite3_bind_int64(stmt, 3, Int64(m))
            sqlite3_step(stmt)
            sqlite3_reset(stmt)
            m += 1
        }
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }
    let baseline = seconds(ContinuousClock.now - baselineStart)
    sqlite3_finalize(stmt)
    sqlite3_close(db)
    let app = makeApp("upload")
    let (realm, _) = try await openSynced(app, "upload.realm", behavior: .always)
    let suspendFirst = ProcessInfo.processInfo.environment["OUTPOST_BENCH_SUSPEND"] != nil
    if suspendFirst { realm.syncSession!.suspend() }
    let uploadStart = ContinuousClock.now
    var n = 0
    while n < objects {
        try realm.write {
            for _ in 0..<min(perTransaction, objects - n) {
                let item = BenchItem()
                item.name = "object \(n)"
                item.n = n
                realm.add(item)
                n += 1
            }
        }
    }
    let committed = seconds(ContinuousClock.now - uploadStart)
    if suspendFirst { realm.syncSession!.resume() }
    try await realm.syncSession!.wait(for: .upload)
    let upload = seconds(ContinuousClock.now - uploadStart)

    print(String(format: "upload %d objects in %d transactions: outpost %.2f s (all committed locally after %.2f s), baseline (SQLite C API) %.2f s, ratio %.2f× (goal ≤ 3×)",
                 objects, objects / perTransaction, upload, committed, baseline, upload / baseline))

    if ProcessInfo.processInfo.environment["OUTPOST_BENCH_UPLOAD_ONLY"] != nil {
        try? FileManager.default.removeItem(at: directory)  // `exit` skips the `defer` that removes it
        exit(0)
    }
    // First open with `.always` of a database whose subscription matches them.
    // Its peak memory: the process's peak resident size is reset first (Linux), and read after the open.
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let residentBefore = kilobytes("VmRSS")
    let openStart = ContinuousClock.now
    let (opened, _) = try await openSynced(makeApp("open"), "open.realm", behavior: .always)
    let open = seconds(ContinuousClock.now - openStart)
    let openPeak = kilobytes("VmHWM")
    let count = opened.objects(BenchItem.self).count
    // Baseline: read the documents from the server's database directly.
    var server: OpaquePointer?
    sqlite3_open_v2(directory.appendingPathComponent("data/outpost.sqlite").path, &server, SQLITE_OPEN_READONLY, nil)
    var read: OpaquePointer?
    sqlite3_prepare_v2(server, "SELECT pk_key, body FROM documents WHERE collection = 'BenchItem'", -1, &read, nil)
    let readStart = ContinuousClock.now
    var rows = 0
    var bytes = 0
    while sqlite3_step(read) == SQLITE_ROW {
        bytes += Int(sqlite3_column_bytes(read, 1))
        if let text = sqlite3_column_text(read, 1) { bytes += String(cString: text).utf8.count }
        rows += 1
    }
    let readBaseline = seconds(ContinuousClock.now - readStart)
    sqlite3_finalize(read)
    sqlite3_close(server)
    print(String(format: "first open .always of %d objects: outpost %.2f s (%d objects), baseline (read the server's database) %.2f s (%d rows), ratio %.2f× (goal ≤ 3×)",
                 objects, open, count, readBaseline, rows, open / readBaseline))
    if let residentBefore, let openPeak {
        print(String(format: "first open .always: peak resident memory %.0f MB, %.0f MB above the %.0f MB before it",
                     Double(openPeak) / 1024, Double(openPeak - residentBefore) / 1024, Double(residentBefore) / 1024))
    }
    // Second baseline, for context (the goal's ratio above uses the first): the same rows read from the server's
    // database and written, as they are (key and stored text), into a new file with the SQLite C API in one
    // transaction: moving the data from one store to the other, with no decoding at all.
    let copyBaseline = try copyRowsBaseline(
        from: directory.appendingPathComponent("data/outpost.sqlite").path,
        to: directory.appendingPathComponent("copy-baseline.sqlite").path)
    print(String(format: "first open .always: baseline 2 (read the server's database and write the rows into a new file with the SQLite C API) %.2f s (%d rows), ratio %.2f×",
                 copyBaseline.seconds, copyBaseline.rows, open / copyBaseline.seconds))
}

/// A size line of /proc/self/status (`VmRSS`, `VmHWM`) in kB; nil where there is none (not Linux).
func kilobytes(_ key: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
    else { return nil }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
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
