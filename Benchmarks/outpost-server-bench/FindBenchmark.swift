import CSQLite
import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting

/// `findOne` of a user's document among another user's many, by `_id` and by an indexed field (`sku`, a queryable
/// field), under the `owner-read-write` role, on SQLite. Each lookup is timed three ways in the same run: the Data
/// API request over HTTP (authentication, rules, JSON), the storage query the Data API makes
/// (`documents(appId:collection:matching:after:limit:)`), and the baseline: the same lookup as SQL on the database
/// file through the SQLite C API. Figures are medians of `lookups` sequential lookups (300, or
/// `OUTPOST_FIND_LOOKUPS`: more for a profile).
enum FindBenchmark {
    struct Timings {
        var http: Double
        var storage: Double
        var direct: Double
    }

    struct Result {
        var insert: Double
        var byId: Timings
        var byField: Timings
        /// The storage query and the SQL each timed in a loop of their own (caches warm), as `http` zero.
        var warmById: Timings
        var warmByField: Timings
    }

    static let mine = 100
    /// The rows the Data API asks storage for first (`DataAPIService.Request.firstPageSize`): a `findOne` that finds
    /// its document ends there.
    static let firstPage = 16

    static func run(documents: Int, lookups: Int = ProcessInfo.processInfo.environment["OUTPOST_FIND_LOOKUPS"].flatMap { Int($0) } ?? 300) async throws -> Result {
        let directory = try TemporaryDirectory("find")
        defer { directory.remove() }
        let path = directory.path("server.sqlite")
        let storage = try SQLiteStorage(path: path)
        var app = try AppDefinition(jsonText: appConfiguration)
        app.dataAPI.enabled = true
        let result = try await withTestServer(configuration: app, storage: storage) { server in
            let login = try await server.client.post(server.clientPath("auth/providers/anon-user/login"))
            guard let token = login["access_token"], let userId = login["user_id"] else { throw TestServerError(login.text) }
            // The user's documents are spread evenly through the others' (ObjectIds grow with time).
            let spacing = max(1, documents / mine)
            var ids: [ObjectId] = []
            let insert = try await Stats.seconds {
                for start in stride(from: 0, to: documents, by: 10_000) {
                    let batch = (start..<min(start + 10_000, documents)).map { i -> Document in
                        let id = ObjectId.generate()
                        let owner = i % spacing == 0 && i / spacing < mine ? userId : "someone-else"
                        if owner == userId { ids.append(id) }
                        return ["_id": .objectId(id), "ownerId": .string(owner), "sku": .string("sku-\(i)"), "n": .int(Int64(i))]
                    }
                    try await storage.transaction(appId: "bench-app") { tx in
                        for document in batch { try await tx.putDocument(collection: "Item", document, text: document.extendedJSONText) }
                    }
                }
            }
            let skus = ids.indices.map { "sku-\($0 * spacing)" }
            let owner = DocumentQuery.Condition(field: "ownerId", values: [.string(userId)])
            let direct = try DirectLookup(path: path, userId: userId)
            defer { direct.close() }
            var byId = [Timings]()
            var byField = [Timings]()
            for k in 0..<lookups {
                let id = ids[k % ids.count]
                let sku = skus[k % skus.count]
                // The lookup that follows the HTTP request runs with the caches it left, the other with the caches the
                // first left (the same document's pages, SQLite's code): the order alternates, so neither way always
                // gets the warm turn.
                let storageFirst = k % 2 == 0
                func pair(_ storageLookup: () async throws -> Double, _ directLookup: () throws -> Double) async throws -> (Double, Double) {
                    if storageFirst {
                        let s = try await storageLookup()
                        return (s, try directLookup())
                    }
                    let d = try directLookup()
                    return (try await storageLookup(), d)
                }
                let httpById = try await request(server, token, #"{"filter": {"_id": {"$oid": "\#(id.stringValue)"}}}"#)
                let (storageById, directById) = try await pair(
                    { try await lookup(storage, [.init(field: "_id", values: [.objectId(id)]), owner]) },
                    { try direct.time(key: PrimaryKeyText.make(.objectId(id))) })
                byId.append(Timings(http: httpById, storage: storageById, direct: directById))
                let httpByField = try await request(server, token, #"{"filter": {"sku": "\#(sku)"}}"#)
                let (storageByField, directByField) = try await pair(
                    { try await lookup(storage, [.init(field: "sku", values: [.string(sku)]), owner]) },
                    { try direct.time(sku: Value.string(sku).extendedJSONText) })
                byField.append(Timings(http: httpByField, storage: storageByField, direct: directByField))
            }
            // The same lookups back to back, each way in a loop of its own: the interleaved figures above include
            // what the HTTP request between two lookups evicts from the caches, which costs the storage query's larger
            // code more than the baseline's few calls.
            func warm(_ storageLookup: (Int) async throws -> Double, _ directLookup: (Int) throws -> Double) async throws -> Timings {
                var storageTimes: [Double] = []
                var directTimes: [Double] = []
                for k in 0..<lookups { storageTimes.append(try await storageLookup(k)) }
                for k in 0..<lookups { directTimes.append(try directLookup(k)) }
                return Timings(http: 0, storage: Stats.percentile(storageTimes, 50), direct: Stats.percentile(directTimes, 50))
            }
            let warmById = try await warm(
                { k in try await lookup(storage, [.init(field: "_id", values: [.objectId(ids[k % ids.count])]), owner]) },
                { k in try direct.time(key: PrimaryKeyText.make(.objectId(ids[k % ids.count]))) })
            let warmByField = try await warm(
                { k in try await lookup(storage, [.init(field: "sku", values: [.string(skus[k % skus.count])]), owner]) },
                { k in try direct.time(sku: Value.string(skus[k % skus.count]).extendedJSONText) })
            return Result(
                insert: insert, byId: median(byId), byField: median(byField), warmById: warmById, warmByField: warmByField)
        }
        try await storage.close()
        return result
    }

    static func median(_ timings: [Timings]) -> Timings {
        Timings(http: Stats.percentile(timings.map(\.http), 50), storage: Stats.percentile(timings.map(\.storage), 50),
                direct: Stats.percentile(timings.map(\.direct), 50))
    }

    static func request(_ server: TestServer, _ token: String, _ body: String) async throws -> Double {
        var found = false
        let seconds = try await Stats.seconds {
            let response = try await server.client.send(
                "POST", server.clientPath("data/Item/findOne"), rawBody: body, bearer: token)
            found = response.status == 200 && response.text.contains("\"sku\"")
        }
        guard found else { throw TestServerError("findOne \(body) found nothing") }
        return seconds
    }

    static func lookup(_ storage: SQLiteStorage, _ conditions: [DocumentQuery.Condition]) async throws -> Double {
        var count = 0
        let seconds = try await Stats.seconds {
            count = try await storage.documents(
                appId: "bench-app", collection: "Item", matching: DocumentQuery(conditions), after: nil,
                limit: firstPage).count
        }
        guard count == 1 else { throw TestServerError("the storage query found \(count) documents") }
        return seconds
    }

    static let appConfiguration = #"""
        {"app_id": "bench-app", "auth": {"anonymous": {"enabled": true}},
         "sync": {"mode": "flexible", "queryable_fields_names": ["sku", "ownerId"], "development_mode_enabled": true},
         "rules": {"Item": {"roles": [{"name": "owner-read-write", "apply_when": {},
            "document_filters": {"read": {"ownerId": "%%user.id"}, "write": {"ownerId": "%%user.id"}}, "read": true, "write": true}]}}}
        """#
}

/// The baseline: the lookups as plain SQL on the server's database file, on the same indexes, reading each row's body.
final class DirectLookup {
    let db: OpaquePointer
    let byKey: OpaquePointer
    let bySku: OpaquePointer

    init(path: String, userId: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw TestServerError("cannot open \(path)")
        }
        self.db = db
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw TestServerError(String(cString: sqlite3_errmsg(db)))
            }
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            sqlite3_bind_text(statement, 1, Value.string(userId).extendedJSONText, -1, transient)
            return statement
        }
        byKey = try prepare("""
            SELECT pk_key, body FROM documents WHERE app = 'bench-app' AND collection = 'Item' AND pk_key = ?2
            AND (body -> '$.ownerId') = ?1
            """)
        bySku = try prepare("""
            SELECT pk_key, body FROM documents WHERE app = 'bench-app' AND collection = 'Item' AND (body -> '$.sku') = ?2
            AND (body -> '$.ownerId') = ?1
            """)
    }

    func time(key: String) throws -> Double { try time(byKey, key) }
    func time(sku: String) throws -> Double { try time(bySku, sku) }

    private func time(_ statement: OpaquePointer, _ value: String) throws -> Double {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var rows = 0
        let start = ContinuousClock.now
        sqlite3_reset(statement)
        sqlite3_bind_text(statement, 2, value, -1, transient)
        while sqlite3_step(statement) == SQLITE_ROW {
            _ = sqlite3_column_text(statement, 1)
            _ = sqlite3_column_bytes(statement, 1)
            rows += 1
        }
        let d = ContinuousClock.now - start
        guard rows == 1 else { throw TestServerError("the SQL lookup found \(rows) rows") }
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    func close() {
        sqlite3_finalize(byKey)
        sqlite3_finalize(bySku)
        sqlite3_close(db)
    }
}
