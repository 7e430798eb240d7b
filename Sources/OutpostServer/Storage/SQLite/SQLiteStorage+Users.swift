import Foundation
import GRDB

extension SQLiteStorage {
    // MARK: Users

    public func insertUser(_ user: StoredUser) async throws {
        let body = try StorageCoding.encode(user, what: "user")
        try await write("insert a user") { db in
            try db.execute(
                sql: "INSERT INTO users (app, id, provider, identity, body) VALUES (?, ?, ?, ?, ?)",
                arguments: [user.appId, user.id, user.provider, user.identity, body])
        }
    }

    public func user(appId: String, id: String) async throws -> StoredUser? {
        let body = try await read("read a user") { db in
            try String.fetchOne(db, sql: "SELECT body FROM users WHERE app = ? AND id = ?", arguments: [appId, id])
        }
        return try body.map { try StorageCoding.decode(StoredUser.self, from: $0, what: "user") }
    }

    public func user(appId: String, provider: String, identity: String) async throws -> StoredUser? {
        let body = try await read("read a user") { db in
            try String.fetchOne(
                db, sql: "SELECT body FROM users WHERE app = ? AND provider = ? AND identity = ?",
                arguments: [appId, provider, identity])
        }
        return try body.map { try StorageCoding.decode(StoredUser.self, from: $0, what: "user") }
    }

    public func updateUser(_ user: StoredUser) async throws {
        let body = try StorageCoding.encode(user, what: "user")
        let changed = try await write("update a user") { db in
            try db.execute(
                sql: "UPDATE users SET provider = ?, identity = ?, body = ? WHERE app = ? AND id = ?",
                arguments: [user.provider, user.identity, body, user.appId, user.id])
            return db.changesCount
        }
        if changed == 0 { throw StorageError(.notFound, "no user with this id exists in the app") }
    }

    @discardableResult
    public func deleteUser(appId: String, id: String) async throws -> Bool {
        try await write("delete a user") { db in
            try db.execute(sql: "DELETE FROM sessions WHERE app = ? AND user_id = ?", arguments: [appId, id])
            try db.execute(sql: "DELETE FROM api_keys WHERE app = ? AND user_id = ?", arguments: [appId, id])
            try db.execute(sql: "DELETE FROM users WHERE app = ? AND id = ?", arguments: [appId, id])
            return db.changesCount > 0
        }
    }

    public func users(appId: String) async throws -> [StoredUser] {
        let bodies = try await read("list users") { db in
            try String.fetchAll(db, sql: "SELECT body FROM users WHERE app = ? ORDER BY id", arguments: [appId])
        }
        return try bodies.map { try StorageCoding.decode(StoredUser.self, from: $0, what: "user") }
    }

    // MARK: Sessions

    public func insertSession(_ session: StoredSession) async throws {
        let body = try StorageCoding.encode(session, what: "session")
        try await write("insert a session") { db in
            try db.execute(
                sql: "INSERT INTO sessions (app, id, user_id, body) VALUES (?, ?, ?, ?)",
                arguments: [session.appId, session.id, session.userId, body])
        }
    }

    public func session(appId: String, id: String) async throws -> StoredSession? {
        let body = try await read("read a session") { db in
            try String.fetchOne(db, sql: "SELECT body FROM sessions WHERE app = ? AND id = ?", arguments: [appId, id])
        }
        return try body.map { try StorageCoding.decode(StoredSession.self, from: $0, what: "session") }
    }

    @discardableResult
    public func deleteSession(appId: String, id: String) async throws -> Bool {
        try await write("delete a session") { db in
            try db.execute(sql: "DELETE FROM sessions WHERE app = ? AND id = ?", arguments: [appId, id])
            return db.changesCount > 0
        }
    }

    /// Sessions are stored through `Codable`, whose dates are seconds since 2001 (`StorageCoding`).
    public func deleteExpiredSessions(appId: String, before date: Date) async throws -> Int {
        try await write("delete expired sessions") { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE app = ? AND json_extract(body, '$.expiresAt') < ?",
                arguments: [appId, date.timeIntervalSinceReferenceDate])
            return db.changesCount
        }
    }

    // MARK: API keys

    public func insertAPIKey(_ key: StoredAPIKey) async throws {
        let body = try StorageCoding.encode(key, what: "API key")
        try await write("insert an API key") { db in
            try db.execute(
                sql: "INSERT INTO api_keys (app, id, user_id, body) VALUES (?, ?, ?, ?)",
                arguments: [key.appId, key.id, key.userId, body])
        }
    }

    public func apiKeys(appId: String, userId: String) async throws -> [StoredAPIKey] {
        let bodies = try await read("list API keys") { db in
            try String.fetchAll(
                db, sql: "SELECT body FROM api_keys WHERE app = ? AND user_id = ? ORDER BY id",
                arguments: [appId, userId])
        }
        return try bodies.map { try StorageCoding.decode(StoredAPIKey.self, from: $0, what: "API key") }
    }

    public func apiKey(appId: String, id: String) async throws -> StoredAPIKey? {
        let body = try await read("read an API key") { db in
            try String.fetchOne(db, sql: "SELECT body FROM api_keys WHERE app = ? AND id = ?", arguments: [appId, id])
        }
        return try body.map { try StorageCoding.decode(StoredAPIKey.self, from: $0, what: "API key") }
    }

    @discardableResult
    public func deleteAPIKey(appId: String, id: String) async throws -> Bool {
        try await write("delete an API key") { db in
            try db.execute(sql: "DELETE FROM api_keys WHERE app = ? AND id = ?", arguments: [appId, id])
            return db.changesCount > 0
        }
    }

    @discardableResult
    public func updateAPIKey(_ key: StoredAPIKey) async throws -> Bool {
        let body = try StorageCoding.encode(key, what: "API key")
        return try await write("update an API key") { db in
            try db.execute(
                sql: "UPDATE api_keys SET body = ? WHERE app = ? AND id = ?", arguments: [body, key.appId, key.id])
            return db.changesCount > 0
        }
    }

    // MARK: Client files

    public func allocateClientFile(appId: String, userId: String) async throws -> ClientFile {
        let salt = Int64.random(in: 1...Int64.max)
        let ident = try await write("allocate a client file") { db -> Int64 in
            let last = try Int64.fetchOne(
                db, sql: "SELECT MAX(ident) FROM client_files WHERE app = ?", arguments: [appId]) ?? 0
            try db.execute(
                sql: "INSERT INTO client_files (app, ident, salt, user_id) VALUES (?, ?, ?, ?)",
                arguments: [appId, last + 1, salt, userId])
            return last + 1
        }
        return ClientFile(appId: appId, ident: ident, salt: salt, userId: userId)
    }

    public func clientFile(appId: String, ident: Int64) async throws -> ClientFile? {
        try await read("read a client file") { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT salt, user_id FROM client_files WHERE app = ? AND ident = ?",
                    arguments: [appId, ident])
            else { return nil }
            return ClientFile(appId: appId, ident: ident, salt: row[0], userId: row[1])
        }
    }
}
