import Foundation
import OutpostCore

/// The upload queue: one row of `__outpost_sync_upload` per committed transaction with changes, by client version,
/// until the server acknowledges it; and the counters kept with it in the meta table.
extension SyncFile {
    /// The largest changeset text one upload message can carry (``SyncProtocolLimits/maxMessageBytes`` less the
    /// message's envelope). A larger transaction is refused at commit: the server would refuse the message, and the
    /// client would reconnect and send it again for ever.
    static let maxChangesetBytes = SyncProtocolLimits.maxMessageBytes - 1024

    /// A queued transaction: its client version, the subscription version it was made under, and its
    /// `UploadChangeset` JSON text as stored (sent as is, not parsed again).
    struct QueuedUpload: Sendable {
        var clientVersion: Int64
        var queryVersion: Int64
        var text: String
    }

    /// Appends a transaction to the queue, inside the transaction that commits it, and returns its client version.
    @discardableResult
    func enqueue(_ instructions: UploadInstructions) throws -> Int64 {
        let version = try lastClientVersion() + 1
        let serverVersion = try integer(.cursorServerVersion) ?? 0
        let queryVersion = try latestSubscriptionVersion()
        let timestamp = Int64(Date().timeIntervalSince1970 * 1000)
        var text: [UInt8] = []
        text.reserveCapacity(instructions.json.count + 96)
        UploadChangeset.writeJSON(clientVersion: version, lastServerVersion: serverVersion, timestamp: timestamp,
                                  to: &text) { instructions.writeArray(to: &$0) }
        guard text.count <= Self.maxChangesetBytes else {
            throw Realm.Error(.fail, "The write transaction could not be queued for upload: its changes take \(text.count) bytes, "
                + "more than the \(Self.maxChangesetBytes) bytes one upload message can carry; split it into smaller write transactions")
        }
        try connection.cached(
            "INSERT INTO __outpost_sync_upload (client_version, server_version, query_version, timestamp, instructions) VALUES (?, ?, ?, ?, ?)"
        ).run([.integer(version), .integer(serverVersion), .integer(queryVersion), .integer(timestamp)], text: text)
        try setInteger(.clientVersion, version)
        try setInteger(.queuedBytes, (try integer(.queuedBytes) ?? 0) + Int64(text.count))
        return version
    }

    /// Queued transactions above `clientVersion`, oldest first, at most `limit`.
    func queued(after clientVersion: Int64, limit: Int) throws -> [QueuedUpload] {
        let rows = try connection.cached(
            "SELECT client_version, query_version, instructions FROM __outpost_sync_upload WHERE client_version > ? ORDER BY client_version LIMIT ?"
        ).rows([.integer(clientVersion), .integer(Int64(limit))])
        var out: [QueuedUpload] = []
        for row in rows {
            guard case .integer(let v) = row[0], case .integer(let q) = row[1], case .text(let text) = row[2] else { continue }
            out.append(QueuedUpload(clientVersion: v, queryVersion: q, text: text))
        }
        return out
    }

    /// Instructions of every queued transaction above `clientVersion` (the local changes not yet integrated).
    func pendingInstructions(after clientVersion: Int64) throws -> [SyncInstruction] {
        var instructions: [SyncInstruction] = []
        for item in try queued(after: clientVersion, limit: Int.max >> 1) {
            guard let json = JSONValue.parse(item.text) else { continue }
            instructions += try UploadChangeset(json: json, path: "upload").instructions
        }
        return instructions
    }

    /// Drops acknowledged transactions, adding their size to `uploadedBytes` (upload progress).
    func acknowledge(through clientVersion: Int64) throws {
        if case .integer(let bytes)? = try connection.cached(
            "SELECT sum(length(CAST(instructions AS BLOB))) FROM __outpost_sync_upload WHERE client_version <= ?"
        ).rows([.integer(clientVersion)]).first?.first, bytes > 0 {
            try setInteger(.uploadedBytes, (try integer(.uploadedBytes) ?? 0) + bytes)
            try setInteger(.queuedBytes, max(0, (try integer(.queuedBytes) ?? 0) - bytes))
        }
        try connection.cached("DELETE FROM __outpost_sync_upload WHERE client_version <= ?").run([.integer(clientVersion)])
        if clientVersion > (try integer(.uploadAck) ?? 0) {
            try setInteger(.uploadAck, clientVersion)
        }
    }

    /// Empties the queue (a client reset that discards): the dropped transactions count as acknowledged, so that
    /// `wait(for: .upload)` does not wait for them.
    func discardQueue() throws {
        try connection.execute("DELETE FROM __outpost_sync_upload")
        try setInteger(.queuedBytes, 0)
        try setInteger(.uploadAck, try lastClientVersion())
    }

    /// The client version the queue last gave a transaction, acknowledged since or not (0: none yet).
    func lastClientVersion() throws -> Int64 {
        try integer(.clientVersion) ?? 0
    }

    /// The newest client version the server acknowledged (0: none yet).
    func uploadAck() throws -> Int64 {
        try integer(.uploadAck) ?? 0
    }

    /// Bytes of changeset text queued, and acknowledged so far: upload progress.
    func queuedBytes() throws -> Int64 { try integer(.queuedBytes) ?? 0 }

    func uploadedBytes() throws -> Int64 { try integer(.uploadedBytes) ?? 0 }
}
