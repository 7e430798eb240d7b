import CSQLite
import Foundation
import Outpost

/// Issue #5's upload goal: `count` events stored on the device (a leftover shard, written here with the SQLite C API
/// in the event store's format) are uploaded to the server's `AuditEvent` collection when a Realm with events for
/// that user opens; timed until the store is empty (every event acknowledged, the shard deleted). The baseline
/// inserts the same documents straight into a database of the server's kind (SQLite C API, the SQLite driver's
/// `documents` table, WAL, one transaction per 2,000 documents as the client's batches).
enum EventUploadBenchmark {
    static func run(count: Int, baseURL: String, directory: URL) async throws -> (outpost: Double, baseline: Double) {
        let root = directory.appendingPathComponent("client-events")
        let app = App(id: "outpost-dev", configuration: AppConfiguration(baseURL: baseURL, rootDirectory: root))
        app.syncManager.logLevel = .warn
        let user = try await app.login(credentials: .anonymous)
        let store = root.appendingPathComponent("realm-audit/outpost-dev/\(user.id)/bench")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)

        let timestamp = "2026-11-21T10:00:00.000Z"
        let data = #"{"BenchItem":{"insertions":[{"_id":"6b01a0e86f21848ca956eed6","n":1,"name":"an object of the benchmark"}]}}"#
        let ids = (0..<count).map { _ in ObjectId.generate().stringValue }

        // The leftover shard, in the event store's format.
        var db: OpaquePointer?
        sqlite3_open(store.appendingPathComponent("\(ObjectId.generate().stringValue).sqlite").path, &db)
        sqlite3_exec(db, """
            CREATE TABLE AuditEvent (_id TEXT PRIMARY KEY NOT NULL, timestamp TEXT NOT NULL, activity TEXT NOT NULL,
            event TEXT, data TEXT, metadata TEXT); BEGIN
            """, nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO AuditEvent VALUES (?, ?, 'bench scope', 'write', ?, NULL)", -1, &insert, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for id in ids {
            sqlite3_bind_text(insert, 1, id, -1, transient)
            sqlite3_bind_text(insert, 2, timestamp, -1, transient)
            sqlite3_bind_text(insert, 3, data, -1, transient)
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
        sqlite3_finalize(insert)
        sqlite3_close(db)

        var events = EventConfiguration(syncUser: user, partitionPrefix: "bench")
        events.errorHandler = { error in print("event upload error: \(error)") }
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent("audited.realm"), objectTypes: [BenchItem.self])
        config.eventConfiguration = events
        let start = ContinuousClock.now
        let realm = try await Realm(configuration: config)
        _ = realm.events
        while ((try? FileManager.default.contentsOfDirectory(atPath: store.path)) ?? []).contains(where: { $0.hasSuffix(".sqlite") }) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let outpost = seconds(ContinuousClock.now - start)

        // Baseline: the same documents into the server's kind of database.
        var base: OpaquePointer?
        sqlite3_open(directory.appendingPathComponent("events-baseline.sqlite").path, &base)
        sqlite3_exec(base, """
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=FULL;
            CREATE TABLE documents (app TEXT NOT NULL, collection TEXT NOT NULL, pk_key TEXT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (app, collection, pk_key))
            """, nil, nil, nil)
        var put: OpaquePointer?
        sqlite3_prepare_v2(base, "INSERT INTO documents VALUES ('outpost-dev', 'AuditEvent', ?, ?)", -1, &put, nil)
        let escapedData = data.replacingOccurrences(of: "\"", with: "\\\"")
        let baselineStart = ContinuousClock.now
        var i = 0
        while i < ids.count {
            sqlite3_exec(base, "BEGIN IMMEDIATE", nil, nil, nil)
            for id in ids[i..<min(i + 2_000, ids.count)] {
                let key = #"{"$oid":"\#(id)"}"#
                let body = #"{"_id":\#(key),"activity":"bench scope","data":"\#(escapedData)","event":"write","timestamp":{"$date":"\#(timestamp)"}}"#
                sqlite3_bind_text(put, 1, key, -1, transient)
                sqlite3_bind_text(put, 2, body, -1, transient)
                sqlite3_step(put)
                sqlite3_reset(put)
            }
            sqlite3_exec(base, "COMMIT", nil, nil, nil)
            i += 2_000
        }
        let baseline = seconds(ContinuousClock.now - baselineStart)
        sqlite3_finalize(put)
        sqlite3_close(base)
        return (outpost, baseline)
    }
}
