import Foundation
import OutpostCore

/// The file's identity, download cursor, counters and client-reset record: one integer per key in
/// `__outpost_sync_meta`.
extension SyncFile {
    enum MetaKey: String {
        /// The identity and salt the server gave the file (absent before the first bind and during a client reset).
        case fileIdent, salt
        /// The download cursor; `cursorSalt` is absent when not known.
        case cursorServerVersion, cursorClientVersion, cursorSalt
        /// The client version the upload queue last gave a transaction (acknowledged since or not).
        case clientVersion
        /// The newest client version the server acknowledged.
        case uploadAck
        /// Bytes of changeset text queued, and acknowledged so far (upload progress).
        case queuedBytes, uploadedBytes
        /// A client reset under way (``ClientResetPlan/storedValue``).
        case clientReset
    }

    func integer(_ key: MetaKey) throws -> Int64? {
        if case .integer(let v) = try connection.scalar(
            "SELECT value FROM __outpost_sync_meta WHERE key = ?", [.text(key.rawValue)]) {
            return v
        }
        return nil
    }

    func setInteger(_ key: MetaKey, _ value: Int64) throws {
        try connection.cached("INSERT OR REPLACE INTO __outpost_sync_meta (key, value) VALUES (?, ?)")
            .run([.text(key.rawValue), .integer(value)])
    }

    // MARK: Identity

    func fileIdent() throws -> Int64? { try integer(.fileIdent) }

    func salt() throws -> Int64? { try integer(.salt) }

    func setIdent(fileIdent: Int64, salt: Int64) throws {
        try setInteger(.fileIdent, fileIdent)
        try setInteger(.salt, salt)
    }

    /// Forgets the identity: the session binds as a new file (a client reset).
    func forgetIdent() throws {
        try connection.execute("DELETE FROM __outpost_sync_meta WHERE key IN ('fileIdent', 'salt')")
    }

    // MARK: Download cursor

    func cursor() throws -> DownloadCursor {
        DownloadCursor(serverVersion: try integer(.cursorServerVersion) ?? 0,
                       clientVersion: try integer(.cursorClientVersion) ?? 0,
                       salt: try integer(.cursorSalt))
    }

    func setCursor(_ cursor: DownloadCursor) throws {
        try setInteger(.cursorServerVersion, cursor.serverVersion)
        try setInteger(.cursorClientVersion, cursor.clientVersion)
        if let salt = cursor.salt {
            try setInteger(.cursorSalt, salt)
        } else {
            try connection.cached("DELETE FROM __outpost_sync_meta WHERE key = 'cursorSalt'").run([])
        }
    }

    // MARK: Client reset

    /// A client reset is under way (``RealmInstance/syncBeginClientReset(_:)``): the next connection resumes it.
    func isClientResetUnderWay() throws -> Bool { try integer(.clientReset) != nil }

    /// Records the reset in the transaction that begins it, so that a crash before its download resumes it.
    func recordClientReset(_ plan: ClientResetPlan) throws {
        try setInteger(.clientReset, plan.storedValue)
    }

    /// Clears the record in the transaction that applies the reset's download.
    func clearClientReset() throws {
        try connection.execute("DELETE FROM __outpost_sync_meta WHERE key = 'clientReset'")
    }
}
