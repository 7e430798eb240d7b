import Foundation
import GRDB

extension SQLiteStorage {
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
