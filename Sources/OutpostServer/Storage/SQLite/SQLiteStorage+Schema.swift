import GRDB

extension SQLiteStorage {
    /// Creates the tables and indexes that do not exist yet, in one write transaction.
    static func createTables(_ db: Database) throws {
        for statement in schemaV1 + auditSchema { try db.execute(sql: statement) }
    }

    /// The audit index and chain (docs/storage-server.md, "Audit index"), added to databases of earlier versions by
    /// the same `prepare()`. The index tables are `WITHOUT ROWID`: each row is its key, stored once, in key order.
    static let auditSchema = [
        """
        CREATE TABLE IF NOT EXISTS audit_events (
            app TEXT NOT NULL, ts INTEGER NOT NULL, event_id TEXT NOT NULL, user_id TEXT, activity TEXT NOT NULL,
            event_type TEXT, batch_seq INTEGER NOT NULL, objects TEXT, user_values TEXT,
            PRIMARY KEY (app, ts, event_id)) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS audit_events_by_activity ON audit_events (app, activity, ts, event_id)",
        "CREATE INDEX IF NOT EXISTS audit_events_by_type ON audit_events (app, event_type, ts, event_id)",
        """
        CREATE TABLE IF NOT EXISTS audit_event_users (
            app TEXT NOT NULL, value TEXT NOT NULL, ts INTEGER NOT NULL, event_id TEXT NOT NULL,
            PRIMARY KEY (app, value, ts, event_id)) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS audit_event_objects (
            app TEXT NOT NULL, class TEXT NOT NULL, pk TEXT NOT NULL, ts INTEGER NOT NULL, event_id TEXT NOT NULL,
            PRIMARY KEY (app, class, pk, ts, event_id)) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS audit_batches (
            app TEXT NOT NULL, seq INTEGER NOT NULL, ingested_at INTEGER NOT NULL, event_count INTEGER NOT NULL,
            first_event TEXT NOT NULL, last_event TEXT NOT NULL, event_ids TEXT NOT NULL, pruned TEXT,
            pruned_count INTEGER NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (app, seq))
        """,
        "CREATE INDEX IF NOT EXISTS audit_batches_by_time ON audit_batches (app, ingested_at)",
        """
        CREATE TABLE IF NOT EXISTS audit_chain (
            app TEXT NOT NULL PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL, events INTEGER NOT NULL)
        """,
    ]

    /// The tables. Bodies are JSON text: documents in Extended JSON, other records through `Codable`.
    static let schemaV1 = [
        """
        CREATE TABLE IF NOT EXISTS users (
            app TEXT NOT NULL, id TEXT NOT NULL, provider TEXT NOT NULL, identity TEXT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (app, id), UNIQUE (app, provider, identity))
        """,
        """
        CREATE TABLE IF NOT EXISTS sessions (
            app TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (app, id))
        """,
        "CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (app, user_id)",
        """
        CREATE TABLE IF NOT EXISTS api_keys (
            app TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (app, id))
        """,
        "CREATE INDEX IF NOT EXISTS api_keys_by_user ON api_keys (app, user_id)",
        """
        CREATE TABLE IF NOT EXISTS client_files (
            app TEXT NOT NULL, ident INTEGER NOT NULL, salt INTEGER NOT NULL, user_id TEXT NOT NULL,
            PRIMARY KEY (app, ident))
        """,
        """
        CREATE TABLE IF NOT EXISTS documents (
            app TEXT NOT NULL, collection TEXT NOT NULL, pk_key TEXT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (app, collection, pk_key))
        """,
        """
        CREATE TABLE IF NOT EXISTS history (
            app TEXT NOT NULL, server_version INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (app, server_version))
        """,
        """
        CREATE TABLE IF NOT EXISTS client_progress (
            app TEXT NOT NULL, file_ident INTEGER NOT NULL, client_version INTEGER NOT NULL,
            PRIMARY KEY (app, file_ident))
        """,
        """
        CREATE TABLE IF NOT EXISTS settings (
            app TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (app, key))
        """,
        """
        CREATE TABLE IF NOT EXISTS log (
            id INTEGER PRIMARY KEY AUTOINCREMENT, app TEXT NOT NULL, time REAL NOT NULL, kind TEXT NOT NULL,
            body TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS log_by_kind ON log (app, kind, time)",
        "CREATE INDEX IF NOT EXISTS log_by_time ON log (app, time)",
    ]
}

extension SQLiteStorage {
    /// Runs one SQL statement as it is (test support: to shape a database as an older version, a failure or someone
    /// with write access to the file would leave it).
    package func execute(unsafeSQL sql: String) async throws {
        try await write("run a statement") { db in try db.execute(sql: sql) }
    }
}
