import Foundation
import PostgresNIO

extension PostgresStorage {
    // MARK: Users

    public func insertUser(_ user: StoredUser) async throws {
        let body = try StorageCoding.encode(user, what: "user")
        try await execute(
            "insert a user",
            """
            INSERT INTO users (app, id, provider, identity, body)
            VALUES (\(user.appId), \(user.id), \(user.provider), \(user.identity), \(body))
            """)
    }

    public func user(appId: String, id: String) async throws -> StoredUser? {
        try await bodies("read a user", "SELECT body FROM users WHERE app = \(appId) AND id = \(id)", as: StoredUser.self)
            .first
    }

    public func user(appId: String, provider: String, identity: String) async throws -> StoredUser? {
        try await bodies(
            "read a user",
            "SELECT body FROM users WHERE app = \(appId) AND provider = \(provider) AND identity = \(identity)",
            as: StoredUser.self
        ).first
    }

    public func updateUser(_ user: StoredUser) async throws {
        let body = try StorageCoding.encode(user, what: "user")
        let updated = try await rows(
            "update a user",
            """
            UPDATE users SET provider = \(user.provider), identity = \(user.identity), body = \(body)
            WHERE app = \(user.appId) AND id = \(user.id) RETURNING 1
            """
        ) { _ in true }
        if updated.isEmpty { throw StorageError(.notFound, "no user with this id exists in the app") }
    }

    @discardableResult
    public func deleteUser(appId: String, id: String) async throws -> Bool {
        let deleted = try await rows(
            "delete a user",
            """
            WITH s AS (DELETE FROM sessions WHERE app = \(appId) AND user_id = \(id)),
                 k AS (DELETE FROM api_keys WHERE app = \(appId) AND user_id = \(id))
            DELETE FROM users WHERE app = \(appId) AND id = \(id) RETURNING 1
            """
        ) { _ in true }
        return !deleted.isEmpty
    }

    public func users(appId: String) async throws -> [StoredUser] {
        try await bodies(
            "list users", "SELECT body FROM users WHERE app = \(appId) ORDER BY id COLLATE \"C\"", as: StoredUser.self)
    }

    // MARK: Sessions

    public func insertSession(_ session: StoredSession) async throws {
        let body = try StorageCoding.encode(session, what: "session")
        try await execute(
            "insert a session",
            """
            INSERT INTO sessions (app, id, user_id, body)
            VALUES (\(session.appId), \(session.id), \(session.userId), \(body))
            """)
    }

    public func session(appId: String, id: String) async throws -> StoredSession? {
        try await bodies(
            "read a session", "SELECT body FROM sessions WHERE app = \(appId) AND id = \(id)", as: StoredSession.self
        ).first
    }

    @discardableResult
    public func deleteSession(appId: String, id: String) async throws -> Bool {
        try await !rows("delete a session", "DELETE FROM sessions WHERE app = \(appId) AND id = \(id) RETURNING 1") { _ in
            ()
        }.isEmpty
    }

    /// Sessions are stored through `Codable`, whose dates are seconds since 2001 (`StorageCoding`).
    public func deleteExpiredSessions(appId: String, before date: Date) async throws -> Int {
        try await rows("delete expired sessions", """
            DELETE FROM sessions WHERE app = \(appId) AND (body::json ->> 'expiresAt')::double precision < \(date.timeIntervalSinceReferenceDate)
            RETURNING 1
            """) { _ in () }.count
    }

    // MARK: API keys

    public func insertAPIKey(_ key: StoredAPIKey) async throws {
        let body = try StorageCoding.encode(key, what: "API key")
        try await execute(
            "insert an API key",
            """
            INSERT INTO api_keys (app, id, user_id, body) VALUES (\(key.appId), \(key.id), \(key.userId), \(body))
            """)
    }

    public func apiKeys(appId: String, userId: String) async throws -> [StoredAPIKey] {
        try await bodies(
            "list API keys",
            "SELECT body FROM api_keys WHERE app = \(appId) AND user_id = \(userId) ORDER BY id COLLATE \"C\"",
            as: StoredAPIKey.self)
    }

    public func apiKey(appId: String, id: String) async throws -> StoredAPIKey? {
        try await bodies(
            "read an API key", "SELECT body FROM api_keys WHERE app = \(appId) AND id = \(id)", as: StoredAPIKey.self
        ).first
    }

    @discardableResult
    public func deleteAPIKey(appId: String, id: String) async throws -> Bool {
        try await !rows("delete an API key", "DELETE FROM api_keys WHERE app = \(appId) AND id = \(id) RETURNING 1") { _ in
            ()
        }.isEmpty
    }

    @discardableResult
    public func updateAPIKey(_ key: StoredAPIKey) async throws -> Bool {
        let body = try StorageCoding.encode(key, what: "API key")
        return try await !rows(
            "update an API key",
            "UPDATE api_keys SET body = \(body) WHERE app = \(key.appId) AND id = \(key.id) RETURNING 1"
        ) { _ in () }.isEmpty
    }

    // MARK: Client files

    /// Allocates the next ident from the app's `client_file` counter row, in one statement: the row lock of the
    /// upsert keeps idents distinct and increasing across processes.
    public func allocateClientFile(appId: String, userId: String) async throws -> ClientFile {
        let salt = Int64.random(in: 1...Int64.max)
        let idents = try await rows(
            "allocate a client file",
            """
            WITH c AS (
                INSERT INTO counters (app, name, value) VALUES (\(appId), 'client_file', 1)
                ON CONFLICT (app, name) DO UPDATE SET value = counters.value + 1 RETURNING value)
            INSERT INTO client_files (app, ident, salt, user_id) SELECT \(appId), value, \(salt), \(userId) FROM c
            RETURNING ident
            """
        ) { try $0.decode(Int64.self) }
        guard let ident = idents.first else { throw StorageError(.database, "allocating a client file returned no ident") }
        return ClientFile(appId: appId, ident: ident, salt: salt, userId: userId)
    }

    public func clientFile(appId: String, ident: Int64) async throws -> ClientFile? {
        try await rows(
            "read a client file", "SELECT salt, user_id FROM client_files WHERE app = \(appId) AND ident = \(ident)"
        ) { row in
            let (salt, userId) = try row.decode((Int64, String).self)
            return ClientFile(appId: appId, ident: ident, salt: salt, userId: userId)
        }.first
    }

    // MARK: Helpers

    /// Runs a query whose single column is a JSON body and decodes each row's body.
    func bodies<T: Decodable>(_ what: String, _ query: PostgresQuery, as type: T.Type) async throws -> [T] {
        let texts = try await rows(what, query) { try $0.decode(String.self) }
        return try texts.map { try StorageCoding.decode(T.self, from: $0, what: what) }
    }
}
