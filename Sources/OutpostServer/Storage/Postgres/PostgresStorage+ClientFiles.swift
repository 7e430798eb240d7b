import Foundation
import PostgresNIO

extension PostgresStorage {
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
}
