import CSQLite
import Foundation
import Logging
import OutpostServer
import OutpostServerTesting
import PostgresNIO

/// The baseline of ``AuditBenchmark``: the same search written by hand as SQL on the same database — the page's keys
/// from the driving index (newest first, cut at the limit) joined to their event rows and documents, and a count of
/// the index range — run straight through the SQLite C API or postgres-nio, reading every column of every row.
///
/// The page is cut before the join, as the storage does: written as one join with the limit at the end, PostgreSQL
/// joined every match and sorted it (at 100,000 events 22 ms by user and 37 ms by metadata value, against 5 ms).
protocol AuditBaseline: AnyObject, Sendable {
    /// Seconds for the page and the count of a search by object or by user (the benchmark's searches).
    func time(_ search: AuditSearch, appId: String, limit: Int) async throws -> Double
    func close() async
}

extension AuditBaseline {
    /// The page and count statements. Parameters: the app, the class and primary key (by object) or the value (by
    /// user), then the page's limit.
    static func statements(byObject: Bool, placeholder: (Int) -> String) -> (page: String, count: String) {
        let (table, condition) = byObject
            ? ("audit_event_objects", "x.class = \(placeholder(2)) AND x.pk = \(placeholder(3))")
            : ("audit_event_users", "x.value = \(placeholder(2))")
        let where_ = "x.app = \(placeholder(1)) AND \(condition)"
        let page = """
            SELECT e.ts, e.event_id, e.user_id, e.activity, e.event_type, e.batch_seq, e.objects, e.user_values, d.body
            FROM (SELECT x.ts, x.event_id FROM \(table) x WHERE \(where_)
                ORDER BY x.ts DESC, x.event_id DESC LIMIT \(placeholder(byObject ? 4 : 3))) AS p
            JOIN audit_events e ON e.app = \(placeholder(1)) AND e.ts = p.ts AND e.event_id = p.event_id
            LEFT JOIN documents d ON d.app = e.app AND d.collection = 'AuditEvent' AND d.pk_key = '{"$oid":"' || e.event_id || '"}'
            ORDER BY p.ts DESC, p.event_id DESC
            """
        return (page, "SELECT count(*) FROM \(table) x WHERE \(where_)")
    }

    /// The texts bound to a statement: the app, the search's class and key or its user, and the limit for a page.
    static func arguments(_ search: AuditSearch, appId: String) -> [String] {
        if let object = search.object { return [appId, object.className, object.primaryKey] }
        return [appId, search.user ?? ""]
    }
}

/// The baseline on the server's SQLite file, through its own read-only connection.
final class SQLiteAuditBaseline: AuditBaseline, @unchecked Sendable {  // used by one task at a time
    let db: OpaquePointer
    /// Page and count statements by object, then by user.
    var statements: [(page: OpaquePointer, count: OpaquePointer)] = []

    init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw TestServerError("cannot open \(path)")
        }
        self.db = db
        for byObject in [true, false] {
            let (page, count) = Self.statements(byObject: byObject) { "?\($0)" }
            statements.append((try prepare(page), try prepare(count)))
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw TestServerError(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }

    func time(_ search: AuditSearch, appId: String, limit: Int) async throws -> Double {
        let (page, count) = statements[search.object != nil ? 0 : 1]
        let texts = Self.arguments(search, appId: appId)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var rows = 0
        let start = ContinuousClock.now
        for statement in [page, count] {
            sqlite3_reset(statement)
            for (i, text) in texts.enumerated() { sqlite3_bind_text(statement, Int32(i + 1), text, -1, transient) }
            if statement == page { sqlite3_bind_int64(statement, Int32(texts.count + 1), Int64(limit)) }
            while sqlite3_step(statement) == SQLITE_ROW {
                for column in 0..<sqlite3_column_count(statement) {
                    _ = sqlite3_column_text(statement, column)
                    _ = sqlite3_column_bytes(statement, column)
                }
                rows += 1
            }
        }
        let d = ContinuousClock.now - start
        guard rows > 1 else { throw TestServerError("the SQL search \(search) found nothing") }
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    func close() async {
        for (page, count) in statements {
            sqlite3_finalize(page)
            sqlite3_finalize(count)
        }
        sqlite3_close(db)
    }
}

/// The baseline on the PostgreSQL schema of the benchmark's storage, through a client of its own.
final class PostgresAuditBaseline: AuditBaseline, @unchecked Sendable {  // its properties are Sendable or immutable
    let client: PostgresClient
    let runner: Task<Void, Never>
    let logger = Logger(label: "bench")

    private init(client: PostgresClient) {
        self.client = client
        runner = Task { await client.run() }
    }

    static func open(schema: String) async throws -> PostgresAuditBaseline {
        let environment = try PostgresTestEnvironment.current()
        var configuration = PostgresClient.Configuration(
            host: environment.host, port: environment.port, username: environment.username,
            password: environment.password, database: environment.database, tls: .disable)
        configuration.options.additionalStartupParameters = [("search_path", "\"\(schema)\"")]
        return PostgresAuditBaseline(client: PostgresClient(configuration: configuration))
    }

    func time(_ search: AuditSearch, appId: String, limit: Int) async throws -> Double {
        let (page, count) = Self.statements(byObject: search.object != nil) { "$\($0)" }
        var rows = 0
        let seconds = try await Stats.seconds {
            for (sql, withLimit) in [(page, true), (count, false)] {
                var binds = PostgresBindings()
                for text in Self.arguments(search, appId: appId) { try binds.append(text) }
                if withLimit { try binds.append(Int64(limit)) }
                let result = try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
                for try await row in result {
                    _ = row.makeRandomAccess()
                    rows += 1
                }
            }
        }
        guard rows > 1 else { throw TestServerError("the SQL search \(search) found nothing") }
        return seconds
    }

    func close() async {
        runner.cancel()
        await runner.value
    }
}
