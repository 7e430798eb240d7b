import Foundation
import OutpostCore

/// The writes the server refused (compensating writes), by client version, in `__outpost_sync_rejections`: what
/// `verdict(forTransaction:)` answers from, also in another process of the file.
extension SyncFile {
    /// How many rejected transactions the file remembers for `verdict(forTransaction:)` (the newest).
    static let maxRecordedRejections = 10_000

    /// Records refused writes by client version (their `rejectedUpdates` JSON), keeping the newest
    /// ``maxRecordedRejections``.
    func recordRejections(_ rejections: [(Int64, [RejectedUpdate])]) throws {
        for (version, updates) in rejections {
            try connection.cached("INSERT OR REPLACE INTO __outpost_sync_rejections (client_version, rejected) VALUES (?, ?)")
                .run([.integer(version), .text(JSONValue.array(updates.map(\.json)).text)])
        }
        try connection.cached("""
            DELETE FROM __outpost_sync_rejections WHERE client_version <= (
                SELECT client_version FROM __outpost_sync_rejections ORDER BY client_version DESC LIMIT 1 OFFSET ?)
            """).run([.integer(Int64(Self.maxRecordedRejections))])
    }

    /// The recorded refused writes by client version, of the versions above `clientVersion`.
    func rejections(after clientVersion: Int64 = 0) throws -> [Int64: [RejectedUpdate]] {
        var out: [Int64: [RejectedUpdate]] = [:]
        for row in try connection.cached(
            "SELECT client_version, rejected FROM __outpost_sync_rejections WHERE client_version > ?"
        ).rows([.integer(clientVersion)]) {
            guard case .integer(let v) = row[0], case .text(let text) = row[1], case .array(let items)? = JSONValue.parse(text)
            else { continue }
            out[v] = items.compactMap { try? RejectedUpdate(json: $0, path: "rejected") }
        }
        return out
    }
}
