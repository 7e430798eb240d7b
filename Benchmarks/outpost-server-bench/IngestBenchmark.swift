import CSQLite
import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Logging
import PostgresNIO

/// One client uploads `documents` small documents in `transactions` transactions under the `owner-read-write`
/// document-filter role, through a real WebSocket to the in-process server; the baseline inserts the same documents
/// straight into the same kind of database (SQLite C API with the driver's table shape; postgres-nio with one
/// multi-row statement per transaction).
enum IngestBenchmark {
    static func run(driver: String, documents: Int, transactions: Int) async throws -> (outpost: Double, baseline: Double) {
        let perTransaction = documents / transactions
        let directory = try TemporaryDirectory("ingest")
        defer { directory.remove() }
        let (storage, pgSchema) = try await Self.storage(driver: driver, in: directory)
        let app = try AppDefinition(jsonText: Workload.appConfiguration)
        let outpost = try await withTestServer(configuration: app, storage: storage) { server in
            let login = try await server.client.post(server.clientPath("auth/providers/anon-user/login"))
            guard let token = login["access_token"], let userId = login["user_id"] else { throw TestServerError(login.text) }
            let docs = Workload.items(count: documents, owner: userId)
            let messages: [ClientMessage] = (0..<transactions).map { t in
                let slice = docs[(t * perTransaction)..<((t + 1) * perTransaction)]
                return .upload(session: 1, changesets: [UploadChangeset(
                    clientVersion: Int64(t + 1), lastServerVersion: 0, timestamp: 0,
                    instructions: slice.map { .create(className: "Item", primaryKey: $0["_id"]!, fields: $0) })])
            }
            let client = try await SyncTestClient.connect(url: server.syncURL(), accessToken: token)
            client.send(.bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil))
            _ = try await client.next { if case .download = $0 { true } else { false } }
            client.send(.query(session: 1, subscriptions: SubscriptionQuery(version: 1, queries: ["Item": "ownerId == '\(userId)'"])))
            _ = try await client.next { if case .download(let d) = $0 { d.queryVersion == 1 && d.batch == .lastInBatch } else { false } }
            // The messages' texts are written before the clock starts, as a real client has them: Outpost's client
            // stores each queued transaction's text at commit and sends it as stored. Only the server's work (and
            // the frames' way over the socket) is timed, not the test client's JSON writing on the same two cores.
            let texts = messages.map(\.text)
            let seconds = try await Stats.seconds {
                for text in texts { client.sendRaw(text) }
                _ = try await client.next(timeout: .seconds(600)) {
                    if case .download(let d) = $0 { d.uploadAck == Int64(transactions) } else { false }
                }
            }
            let stored = try await storage.documents(appId: "bench-app", collection: "Item").count
            guard stored == documents else { throw TestServerError("stored \(stored) of \(documents) documents") }
            await client.close()
            return seconds
        }
        try await storage.close()
        let docs = Workload.items(count: documents, owner: "user")
        let baseline: Double
        if driver == "sqlite" {
            baseline = try await sqliteBaseline(path: directory.path("baseline.sqlite"), docs, perTransaction: perTransaction)
        } else {
            baseline = try await postgresBaseline(docs, perTransaction: perTransaction)
            await dropSchema(pgSchema)
        }
        return (outpost, baseline)
    }

    /// A prepared storage of `driver` (`sqlite` in `directory`, `postgres` in a schema of its own, named).
    static func storage(driver: String, in directory: TemporaryDirectory) async throws -> (any ServerStorage, String?) {
        let storage: any ServerStorage
        var pgSchema: String?
        if driver == "sqlite" {
            storage = try SQLiteStorage(path: directory.path("server.sqlite"))
        } else {
            let environment = try PostgresTestEnvironment.current()
            pgSchema = PostgresTestEnvironment.uniqueSchemaName()
            storage = PostgresStorage(configuration: environment.configuration(schema: pgSchema!))
        }
        try await storage.prepare()
        return (storage, pgSchema)
    }

    /// Drops a PostgreSQL schema `storage(driver:in:)` made.
    static func dropSchema(_ schema: String?) async {
        guard let schema, let environment = try? PostgresTestEnvironment.current() else { return }
        let cleanup = PostgresStorage(configuration: environment.configuration(schema: schema))
        try? await cleanup.dropSchema()
        try? await cleanup.close()
    }

    static func sqliteBaseline(path: String, _ docs: [Document], perTransaction: Int) async throws -> Double {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw TestServerError("cannot open \(path)") }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL", nil, nil, nil)  // as the storage (WAL, FULL)
        sqlite3_exec(db, """
            CREATE TABLE documents (app TEXT NOT NULL, collection TEXT NOT NULL, pk_key TEXT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (app, collection, pk_key))
            """, nil, nil, nil)
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO documents VALUES ('bench-app', 'Item', ?, ?)", -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        return await Stats.seconds {
            var i = 0
            while i < docs.count {
                sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil)
                for doc in docs[i..<min(i + perTransaction, docs.count)] {
                    sqlite3_reset(stmt)
                    sqlite3_bind_text(stmt, 1, doc["_id"]!.extendedJSON.text, -1, transient)
                    sqlite3_bind_text(stmt, 2, doc.extendedJSONText, -1, transient)
                    sqlite3_step(stmt)
                }
                sqlite3_exec(db, "COMMIT", nil, nil, nil)
                i += perTransaction
            }
        }
    }

    static func postgresBaseline(_ docs: [Document], perTransaction: Int) async throws -> Double {
        let environment = try PostgresTestEnvironment.current()
        let schema = PostgresTestEnvironment.uniqueSchemaName()
        let storage = PostgresStorage(configuration: environment.configuration(schema: schema))
        try await storage.prepare()  // creates the schema and the driver's tables
        try await storage.close()
        let config = PostgresClient.Configuration(
            host: environment.host, port: environment.port, username: environment.username,
            password: environment.password, database: environment.database, tls: .disable)
        let client = PostgresClient(configuration: config)
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        let table = "\"\(schema)\".documents"
        let logger = Logger(label: "bench")
        let seconds = try await Stats.seconds {
            var i = 0
            while i < docs.count {
                let batch = docs[i..<min(i + perTransaction, docs.count)]
                let keys = batch.map { $0["_id"]!.extendedJSON.text }
                let bodies = batch.map(\.extendedJSONText)
                try await client.withTransaction(logger: logger) { connection in
                    _ = try await connection.query(
                        "INSERT INTO \(unescaped: table) (app, collection, pk_key, body) SELECT 'bench-app', 'Item', k, b::jsonb FROM unnest(\(keys)::text[], \(bodies)::text[]) AS t(k, b)",
                        logger: logger)
                }
                i += perTransaction
            }
        }
        let cleanup = PostgresStorage(configuration: environment.configuration(schema: schema))
        try? await cleanup.dropSchema()
        try? await cleanup.close()
        return seconds
    }
}
