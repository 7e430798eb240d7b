import CSQLite
import Foundation
import Outpost
import OutpostServerTesting

/// One round of `outpost-sync-bench upload`, on a server of its own: the upload goal (100k objects committed and
/// uploaded, against the same rows written with the SQLite C API) and the first-open goal (a second client's first
/// open with `.always` of a database subscribed to them, against the same data through raw storage: read from the
/// server's database directly and written into a new file with the SQLite C API; the read alone is printed too).
struct UploadRound {
    struct Open {
        var seconds: Double
        var count: Int
        var readBaseline: Double
        var rows: Int
        var copyBaseline: Double
        var copiedRows: Int
        /// Peak resident memory during the open and before it, in kB (Linux).
        var peak: Int?
        var before: Int?
    }

    var upload: Double
    var committed: Double
    var baseline: Double
    /// CPU seconds the server and this process used from the first commit to the end of the upload (Linux).
    var serverCPU: Double?
    var clientCPU: Double?
    /// Nil with `OUTPOST_BENCH_UPLOAD_ONLY`.
    var open: Open?

    static let perTransaction = 1_000

    @MainActor
    static func run(objects: Int, server: OutpostServerProcess, directory: URL) async throws -> UploadRound {
        let baseURL = "http://127.0.0.1:\(server.port)"
        // Baseline first, while nothing else runs (the server's WAL checkpoint after the upload would slow it): the
        // same rows with the SQLite C API, in the same number of transactions.
        let baseline = try writeRowsBaseline(objects: objects, path: directory.appendingPathComponent("baseline.sqlite").path)
        let app = makeApp("upload", baseURL: baseURL, root: directory)
        let (realm, _) = try await openSynced(app, "upload.realm", behavior: .always)
        let suspendFirst = ProcessInfo.processInfo.environment["OUTPOST_BENCH_SUSPEND"] != nil
        if suspendFirst { realm.syncSession!.suspend() }
        let serverCPUBefore = cpuSeconds(pid: server.processIdentifier)
        let clientCPUBefore = cpuSeconds(pid: getpid())
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
        var result = UploadRound(upload: upload, committed: committed, baseline: baseline, open: nil)
        if let before = serverCPUBefore, let after = cpuSeconds(pid: server.processIdentifier) { result.serverCPU = after - before }
        if let before = clientCPUBefore, let after = cpuSeconds(pid: getpid()) { result.clientCPU = after - before }
        if ProcessInfo.processInfo.environment["OUTPOST_BENCH_UPLOAD_ONLY"] != nil { return result }

        // First open with `.always` of a database whose subscription matches them. Its peak memory: the
        // process's peak resident size is reset first (Linux), and read after the open.
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let residentBefore = kilobytes("VmRSS")
        let openStart = ContinuousClock.now
        let (opened, _) = try await openSynced(makeApp("open", baseURL: baseURL, root: directory), "open.realm", behavior: .always)
        let open = seconds(ContinuousClock.now - openStart)
        let openPeak = kilobytes("VmHWM")
        let count = opened.objects(BenchItem.self).count
        let serverDatabase = directory.appendingPathComponent("data/outpost.sqlite").path
        let read = try readRowsBaseline(serverPath: serverDatabase)
        // The goal's baseline: the same rows read from the server's database and written, as they are (key and
        // stored text), into a new file with the SQLite C API in one transaction: moving the data from one store to
        // the other, with no decoding at all. The read alone (above) is printed for context.
        let copy = try copyRowsBaseline(from: serverDatabase, to: directory.appendingPathComponent("copy-baseline.sqlite").path)
        result.open = Open(seconds: open, count: count, readBaseline: read.seconds, rows: read.rows,
                           copyBaseline: copy.seconds, copiedRows: copy.rows, peak: openPeak, before: residentBefore)
        return result
    }

    /// The round's lines, in the format of the earlier sessions' figures. The peak memory is printed for the first
    /// round only: later rounds start with what the earlier ones left in the process.
    func report(objects: Int, round: Int) {
        print(String(format: "upload %d objects in %d transactions: outpost %.2f s (all committed locally after %.2f s), baseline (SQLite C API) %.2f s, ratio %.2f× (goal ≤ 3×)",
                     objects, objects / Self.perTransaction, upload, committed, baseline, upload / baseline))
        if let serverCPU, let clientCPU {
            print(String(format: "upload: CPU used meanwhile: server %.2f s, client %.2f s (on %d cores)", serverCPU, clientCPU,
                         ProcessInfo.processInfo.activeProcessorCount))
        }
        guard let open else { return }
        print(String(format: "first open .always of %d objects: outpost %.2f s (%d objects), baseline (read the rows from the server's database directly and write them with the SQLite C API) %.2f s (%d rows), ratio %.2f× (goal ≤ 3×)",
                     objects, open.seconds, open.count, open.copyBaseline, open.copiedRows, open.seconds / open.copyBaseline))
        if round == 0, let before = open.before, let peak = open.peak {
            print(String(format: "first open .always: peak resident memory %.0f MB, %.0f MB above the %.0f MB before it",
                         Double(peak) / 1024, Double(peak - before) / 1024, Double(before) / 1024))
        }
        print(String(format: "first open .always: against the read alone (context) %.3f s (%d rows), ratio %.2f×",
                     open.readBaseline, open.rows, open.seconds / open.readBaseline))
    }

    /// `objects` rows inserted with the SQLite C API in transactions of `perTransaction`, at the client's durability
    /// (WAL, `synchronous=FULL`).
    static func writeRowsBaseline(objects: Int, path: String) throws -> Double {
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE items (_id BLOB PRIMARY KEY, name TEXT, n INTEGER)", nil, nil, nil)
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO items VALUES (?, ?, ?)", -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let start = ContinuousClock.now
        var m = 0
        while m < objects {
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            for _ in 0..<min(perTransaction, objects - m) {
                let id = ObjectId.generate().bytes
                sqlite3_bind_blob(stmt, 1, id, Int32(id.count), transient)
                sqlite3_bind_text(stmt, 2, "object \(m)", -1, transient)
                sqlite3_bind_int64(stmt, 3, Int64(m))
                guard sqlite3_step(stmt) == SQLITE_DONE else {
                    throw BenchError("upload baseline: insert failed: \(String(cString: sqlite3_errmsg(db)))")
                }
                sqlite3_reset(stmt)
                m += 1
            }
            guard sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else { throw BenchError("upload baseline: commit failed") }
        }
        return seconds(ContinuousClock.now - start)
    }

    /// Reads BenchItem's documents from the server's SQLite database directly (key and stored text).
    static func readRowsBaseline(serverPath: String) throws -> (seconds: Double, rows: Int) {
        var server: OpaquePointer?
        sqlite3_open_v2(serverPath, &server, SQLITE_OPEN_READONLY, nil)
        defer { sqlite3_close(server) }
        var read: OpaquePointer?
        guard sqlite3_prepare_v2(server, "SELECT pk_key, body FROM documents WHERE collection = 'BenchItem'", -1, &read, nil) == SQLITE_OK else {
            throw BenchError("read baseline: \(String(cString: sqlite3_errmsg(server)))")
        }
        defer { sqlite3_finalize(read) }
        let start = ContinuousClock.now
        var rows = 0
        var bytes = 0
        while sqlite3_step(read) == SQLITE_ROW {
            bytes += Int(sqlite3_column_bytes(read, 1))
            if let text = sqlite3_column_text(read, 1) { bytes += String(cString: text).utf8.count }
            rows += 1
        }
        return (seconds(ContinuousClock.now - start), rows)
    }
}
