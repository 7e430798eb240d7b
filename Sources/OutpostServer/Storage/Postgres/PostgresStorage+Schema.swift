import Logging
import PostgresNIO

extension PostgresStorage {
    /// Creates the schema (when configured), tables and indexes if they do not exist. Safe to run from several
    /// processes at once: it holds a transaction-level advisory lock while it works.
    public func prepare() async throws {
        try await run("create the tables") {
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('outpost:schema', 0))", logger: logger).collect()
                    if let schema = configuration.schema {
                        try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: Self.quoted(schema))", logger: logger)
                    }
                    for statement in Self.schemaV1 + Self.auditSchema {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await Self.convertJSONBColumnsToText(on: connection, logger: logger)
                    try await connection.query("COMMIT", logger: logger)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    /// Databases created before bodies were `text` had them as `jsonb`, which refuses U+0000 (`\u0000`) in any
    /// string or key: such a document could never be stored, and its upload was retried for ever. Each such
    /// column is converted once, in place (the texts `jsonb` gives back are valid JSON of the same values).
    static func convertJSONBColumnsToText(on connection: PostgresConnection, logger: Logger) async throws {
        let columns = try await connection.query(
            """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND data_type = 'jsonb'
                AND table_name IN ('users', 'sessions', 'api_keys', 'documents', 'history', 'settings', 'log')
            ORDER BY table_name
            """, logger: logger
        ).collect().map { try $0.decode((String, String).self) }
        for (table, column) in columns {
            let (t, c) = (quoted(table), quoted(column))
            try await connection.query(
                PostgresQuery(unsafeSQL: "ALTER TABLE \(t) ALTER COLUMN \(c) TYPE text USING \(c)::text"), logger: logger)
        }
    }

    /// The tables. Bodies are `text` holding JSON: documents in Extended JSON, other records through `Codable`.
    /// Not `jsonb`: it refuses U+0000 in strings and keys, which Realm and the other driver store, and the server
    /// never queries inside a body. `pk_key` uses the "C" collation so its comparisons do not depend on the
    /// database's locale.
    static let schemaV1 = [
        """
        CREATE TABLE IF NOT EXISTS users (
            app text NOT NULL, id text NOT NULL, provider text NOT NULL, identity text NOT NULL, body text NOT NULL,
            PRIMARY KEY (app, id), UNIQUE (app, provider, identity))
        """,
        """
        CREATE TABLE IF NOT EXISTS sessions (
            app text NOT NULL, id text NOT NULL, user_id text NOT NULL, body text NOT NULL, PRIMARY KEY (app, id))
        """,
        "CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (app, user_id)",
        """
        CREATE TABLE IF NOT EXISTS api_keys (
            app text NOT NULL, id text NOT NULL, user_id text NOT NULL, body text NOT NULL, PRIMARY KEY (app, id))
        """,
        "CREATE INDEX IF NOT EXISTS api_keys_by_user ON api_keys (app, user_id)",
        """
        CREATE TABLE IF NOT EXISTS client_files (
            app text NOT NULL, ident bigint NOT NULL, salt bigint NOT NULL, user_id text NOT NULL,
            PRIMARY KEY (app, ident))
        """,
        """
        CREATE TABLE IF NOT EXISTS counters (
            app text NOT NULL, name text NOT NULL, value bigint NOT NULL, PRIMARY KEY (app, name))
        """,
        """
        CREATE TABLE IF NOT EXISTS documents (
            app text NOT NULL, collection text NOT NULL, pk_key text COLLATE "C" NOT NULL, body text NOT NULL,
            PRIMARY KEY (app, collection, pk_key))
        """,
        """
        CREATE TABLE IF NOT EXISTS history (
            app text NOT NULL, server_version bigint NOT NULL, body text NOT NULL, PRIMARY KEY (app, server_version))
        """,
        """
        CREATE TABLE IF NOT EXISTS client_progress (
            app text NOT NULL, file_ident bigint NOT NULL, client_version bigint NOT NULL,
            PRIMARY KEY (app, file_ident))
        """,
        """
        CREATE TABLE IF NOT EXISTS settings (
            app text NOT NULL, key text NOT NULL, value text NOT NULL, PRIMARY KEY (app, key))
        """,
        """
        CREATE TABLE IF NOT EXISTS log (
            id bigserial PRIMARY KEY, app text NOT NULL, time double precision NOT NULL, kind text NOT NULL,
            body text NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS log_by_kind ON log (app, kind, time)",
        "CREATE INDEX IF NOT EXISTS log_by_time ON log (app, time)",
    ]

    /// The audit index and chain (docs/storage-server.md, "Audit index"), added to databases of earlier versions by
    /// the same `prepare()`. Texts compared or ordered use the "C" collation, as `pk_key` does: byte order, the same
    /// as SQLite's.
    static let auditSchema = [
        """
        CREATE TABLE IF NOT EXISTS audit_events (
            app text NOT NULL, ts bigint NOT NULL, event_id text COLLATE "C" NOT NULL, user_id text,
            activity text COLLATE "C" NOT NULL, event_type text COLLATE "C", batch_seq bigint NOT NULL, objects text,
            user_values text, PRIMARY KEY (app, ts, event_id))
        """,
        "CREATE INDEX IF NOT EXISTS audit_events_by_activity ON audit_events (app, activity, ts, event_id)",
        "CREATE INDEX IF NOT EXISTS audit_events_by_type ON audit_events (app, event_type, ts, event_id)",
        """
        CREATE TABLE IF NOT EXISTS audit_event_users (
            app text NOT NULL, value text COLLATE "C" NOT NULL, ts bigint NOT NULL, event_id text COLLATE "C" NOT NULL,
            PRIMARY KEY (app, value, ts, event_id))
        """,
        """
        CREATE TABLE IF NOT EXISTS audit_event_objects (
            app text NOT NULL, class text COLLATE "C" NOT NULL, pk text COLLATE "C" NOT NULL, ts bigint NOT NULL,
            event_id text COLLATE "C" NOT NULL, PRIMARY KEY (app, class, pk, ts, event_id))
        """,
        """
        CREATE TABLE IF NOT EXISTS audit_batches (
            app text NOT NULL, seq bigint NOT NULL, ingested_at bigint NOT NULL, event_count bigint NOT NULL,
            first_event text NOT NULL, last_event text NOT NULL, event_ids text NOT NULL, pruned text,
            pruned_count bigint NOT NULL, prev_hash text NOT NULL, hash text NOT NULL, PRIMARY KEY (app, seq))
        """,
        "CREATE INDEX IF NOT EXISTS audit_batches_by_time ON audit_batches (app, ingested_at)",
        """
        CREATE TABLE IF NOT EXISTS audit_chain (
            app text NOT NULL PRIMARY KEY, seq bigint NOT NULL, hash text NOT NULL, events bigint NOT NULL)
        """,
    ]
}

extension PostgresStorage {
    /// Drops the storage's schema with everything in it (test support; the storage must have a schema).
    package func dropSchema() async throws {
        guard let schema = configuration.schema else {
            preconditionFailure("dropSchema() needs a storage configured with a schema")
        }
        try await execute("drop the schema", "DROP SCHEMA IF EXISTS \(unescaped: Self.quoted(schema)) CASCADE")
    }

    /// Runs one SQL statement as it is (test support: to shape a database as an older version or a failure
    /// would leave it).
    package func execute(unsafeSQL sql: String) async throws {
        try await execute("run a statement", PostgresQuery(unsafeSQL: sql))
    }
}
