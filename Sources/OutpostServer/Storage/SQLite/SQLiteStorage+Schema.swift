import GRDB

extension SQLiteStorage {
    /// Creates the tables and indexes that do not exist yet, in one write transaction.
    static func createTables(_ db: Database) throws {
        for statement in schemaV1 { try db.execute(sql: statement) }
    }

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
