import Foundation
import OutpostCore

/// Download messages held back in the file (`__outpost_sync_held`, ``HeldDownloads``): their text as it came, in
/// order, until the transaction that applies them deletes them.
extension SyncFile {
    /// Stores a held download message's text, after those stored before it.
    func holdDownload(_ text: String) throws {
        try connection.cached("INSERT INTO __outpost_sync_held (message) VALUES (?)").run([.text(text)])
    }

    /// The text of the first stored download message after `sequence`, and its sequence number; nil when there is
    /// none.
    func heldDownload(after sequence: Int64) throws -> (Int64, String)? {
        let rows = try connection.cached("SELECT seq, message FROM __outpost_sync_held WHERE seq > ? ORDER BY seq LIMIT 1")
            .rows([.integer(sequence)])
        guard let row = rows.first else { return nil }
        guard case .integer(let seq) = row[0], case .text(let text) = row[1] else {
            throw SyncError(.clientInternalError, "A held download after \(sequence) in the file is not text.")
        }
        return (seq, text)
    }

    /// Whether any held download message is stored.
    func hasHeldDownloads() throws -> Bool {
        try connection.scalar("SELECT EXISTS (SELECT 1 FROM __outpost_sync_held)", []) == .integer(1)
    }

    /// Deletes every stored message: applied, or left by a connection that is gone.
    func dropHeldDownloads() throws {
        try connection.execute("DELETE FROM __outpost_sync_held")
    }
}
