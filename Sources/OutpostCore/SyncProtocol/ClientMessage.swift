/// A message a client sends to the server. Each message is one WebSocket text frame holding one JSON object
/// with a `type` field; see `docs/protocol.md`.
public enum ClientMessage: Hashable, Sendable {
    /// Opens a session for one synced file.
    ///
    /// - `fileIdent`/`salt`: the identity the server gave this file earlier, or nil to ask for a new one.
    /// - `partition`: the partition value (partition mode only; `.null` is a valid partition).
    /// - `cursor`: how far the file has downloaded.
    /// - `subscriptions`: the active (complete) subscription set the file holds data for (flexible mode).
    case bind(
        session: Int64, mode: SyncMode, partition: Value?, fileIdent: Int64?, salt: Int64?, cursor: DownloadCursor,
        subscriptions: SubscriptionQuery?)
    /// A new subscription set (flexible mode).
    case query(session: Int64, subscriptions: SubscriptionQuery)
    /// Committed client transactions, in client-version order.
    case upload(session: Int64, changesets: [UploadChangeset])
    /// Asks to be told when everything the server has now has been downloaded.
    case mark(session: Int64, requestId: Int64)
    /// Ends a session.
    case unbind(session: Int64)
    /// Keepalive; the server answers `pong` with the same timestamp.
    case ping(timestamp: Int64)

    /// The session the message belongs to (0 for connection-level messages).
    public var session: Int64 {
        switch self {
        case .bind(let s, _, _, _, _, _, _), .query(let s, _), .upload(let s, _), .mark(let s, _), .unbind(let s): s
        case .ping: 0
        }
    }
}

extension ClientMessage {
    package var json: JSONValue {
        switch self {
        case .bind(let session, let mode, let partition, let fileIdent, let salt, let cursor, let subs):
            var o: [String: JSONValue] = [
                "type": "bind", "session": .int(session), "mode": .string(mode.rawValue),
                "protocolVersion": .int(Int64(SyncProtocolLimits.protocolVersion)),
                "cursor": cursor.json,
            ]
            if let partition { o["partition"] = partition.extendedJSON }
            if let fileIdent { o["fileIdent"] = .int(fileIdent) }
            if let salt { o["salt"] = .int(salt) }
            if let subs { o["subscriptions"] = subs.json }
            return .object(o)
        case .query(let session, let subs):
            return .object(["type": "query", "session": .int(session), "subscriptions": subs.json])
        case .upload(let session, let changesets):
            return .object(["type": "upload", "session": .int(session), "changesets": .array(changesets.map(\.json))])
        case .mark(let session, let requestId):
            return .object(["type": "mark", "session": .int(session), "requestId": .int(requestId)])
        case .unbind(let session):
            return .object(["type": "unbind", "session": .int(session)])
        case .ping(let timestamp):
            return .object(["type": "ping", "timestamp": .int(timestamp)])
        }
    }

    /// Parses one message.
    ///
    /// - Throws: ``SyncProtocolError`` with 104 for an oversized message, 103 for text that is not a JSON object
    ///   of the right shape (naming the field), 102 for an unknown `type`.
    public init(text: String) throws(SyncProtocolError) {
        guard text.utf8.count <= SyncProtocolLimits.maxMessageBytes else {
            throw SyncProtocolError(.limitsExceeded, "Message of \(text.utf8.count) bytes exceeds the limit of \(SyncProtocolLimits.maxMessageBytes) bytes")
        }
        guard let json = JSONValue.parse(text) else {
            throw SyncProtocolError(.badSyntax, "Bad syntax: the message is not valid JSON")
        }
        try self.init(json: json)
    }

    package init(json: JSONValue) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: "message")
        let type = try r.string("type")
        switch type {
        case "bind":
            let modeText = try r.string("mode")
            guard let mode = SyncMode(rawValue: modeText) else {
                throw r.error("unknown sync mode '\(modeText)' (expected 'flexible' or 'partition')", key: "mode")
            }
            if let v = try r.optionalInt("protocolVersion"), v != Int64(SyncProtocolLimits.protocolVersion) {
                throw SyncProtocolError(.wrongProtocolVersion,
                                        "Wrong protocol version \(v); this server speaks version \(SyncProtocolLimits.protocolVersion)")
            }
            let partition: Value? = r.fields["partition"] == nil ? nil : try r.value("partition")
            let cursor = r.has("cursor") ? try DownloadCursor(json: try r.raw("cursor"), path: "message.cursor") : .start
            let subs = r.has("subscriptions")
                ? try SubscriptionQuery(json: try r.raw("subscriptions"), path: "message.subscriptions") : nil
            self = .bind(session: try r.version("session"), mode: mode, partition: partition,
                         fileIdent: try r.optionalInt("fileIdent"), salt: try r.optionalInt("salt"), cursor: cursor,
                         subscriptions: subs)
        case "query":
            self = .query(session: try r.version("session"),
                          subscriptions: try SubscriptionQuery(json: try r.raw("subscriptions"), path: "message.subscriptions"))
        case "upload":
            let items = try r.array("changesets")
            guard items.count <= SyncProtocolLimits.maxChangesetsPerUpload else {
                throw SyncProtocolError(.limitsExceeded,
                                        "Upload of \(items.count) changesets exceeds the limit of \(SyncProtocolLimits.maxChangesetsPerUpload)")
            }
            var changesets: [UploadChangeset] = []
            changesets.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                changesets.append(try UploadChangeset(json: item, path: "message.changesets[\(i)]"))
            }
            self = .upload(session: try r.version("session"), changesets: changesets)
        case "mark": self = .mark(session: try r.version("session"), requestId: try r.int("requestId"))
        case "unbind": self = .unbind(session: try r.version("session"))
        case "ping": self = .ping(timestamp: try r.int("timestamp"))
        default:
            throw SyncProtocolError(.unknownMessage, "Unknown message type '\(type.prefix(64))'")
        }
    }
}
