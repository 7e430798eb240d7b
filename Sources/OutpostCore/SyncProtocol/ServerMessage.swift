/// A message the server sends to a client: one WebSocket text frame holding one JSON object with a `type`.
public enum ServerMessage: Hashable, Sendable {
    /// The identity allocated for a file that bound without one. The client stores it before uploading.
    case ident(session: Int64, fileIdent: Int64, salt: Int64)
    /// Changes for the client, and the acknowledgement of its uploads (the fields are described on
    /// ``DownloadMessage``).
    case download(DownloadMessage)
    /// The answer to a client's `mark`: everything up to `cursor.serverVersion` has been sent.
    case mark(session: Int64, requestId: Int64, serverVersion: Int64)
    /// The server ended the session (after `unbind` or a session error).
    case unbound(session: Int64)
    /// The answer to `ping`.
    case pong(timestamp: Int64)
    /// An error for a session (or the connection when `session` is 0).
    case error(SyncErrorInfo)
    /// A subscription set the server refused (code 226); the session goes on with the previous set.
    case queryError(session: Int64, version: Int64, code: SyncErrorCode, message: String)
    /// A line for the client's log.
    case log(session: Int64, level: String, message: String)
}

extension ServerMessage {
    package var json: JSONValue {
        switch self {
        case .ident(let s, let ident, let salt):
            return .object(["type": "ident", "session": .int(s), "fileIdent": .int(ident), "salt": .int(salt)])
        case .download(let d):
            return .object([
                "type": "download", "session": .int(d.session), "cursor": d.cursor.json,
                "latestServerVersion": .int(d.latestServerVersion), "uploadAck": .int(d.uploadAck),
                "queryVersion": .int(d.queryVersion), "batch": .string(d.batch.rawValue),
                "changesets": .array(d.changesets.map(\.json)),
            ])
        case .mark(let s, let id, let version):
            return .object(["type": "mark", "session": .int(s), "requestId": .int(id), "serverVersion": .int(version)])
        case .unbound(let s): return .object(["type": "unbound", "session": .int(s)])
        case .pong(let t): return .object(["type": "pong", "timestamp": .int(t)])
        case .error(let info): return info.json
        case .queryError(let s, let v, let code, let message):
            return .object([
                "type": "query_error", "session": .int(s), "version": .int(v), "code": .int(Int64(code.rawValue)),
                "message": .string(message),
            ])
        case .log(let s, let level, let message):
            return .object(["type": "log", "session": .int(s), "level": .string(level), "message": .string(message)])
        }
    }

    /// Parses one message (the client side of the protocol).
    public init(text: String) throws(SyncProtocolError) {
        guard let json = JSONValue.parse(text) else {
            throw SyncProtocolError(.badSyntax, "Bad syntax: the message is not valid JSON")
        }
        let r = try JSONFields(json, path: "message")
        switch try r.string("type") {
        case "ident": self = .ident(session: try r.version("session"), fileIdent: try r.int("fileIdent"), salt: try r.int("salt"))
        case "download":
            let batchText = try r.string("batch")
            guard let batch = DownloadBatchState(rawValue: batchText) else {
                throw r.error("unknown batch state '\(batchText)'", key: "batch")
            }
            var changesets: [DownloadChangeset] = []
            for (i, item) in try r.array("changesets").enumerated() {
                changesets.append(try DownloadChangeset(json: item, path: "message.changesets[\(i)]"))
            }
            self = .download(DownloadMessage(
                session: try r.version("session"),
                cursor: try DownloadCursor(json: try r.raw("cursor"), path: "message.cursor"),
                latestServerVersion: try r.version("latestServerVersion"), uploadAck: try r.version("uploadAck"),
                queryVersion: try r.version("queryVersion"), batch: batch, changesets: changesets))
        case "mark":
            self = .mark(session: try r.version("session"), requestId: try r.int("requestId"),
                         serverVersion: try r.version("serverVersion"))
        case "unbound": self = .unbound(session: try r.version("session"))
        case "pong": self = .pong(timestamp: try r.int("timestamp"))
        case "error": self = .error(try SyncErrorInfo(json: json))
        case "query_error":
            self = .queryError(session: try r.version("session"), version: try r.version("version"),
                               code: SyncErrorCode(rawValue: Int(try r.int("code"))), message: try r.string("message"))
        case "log": self = .log(session: try r.version("session"), level: try r.string("level"), message: try r.string("message"))
        case let other: throw SyncProtocolError(.unknownMessage, "Unknown message type '\(other.prefix(64))'")
        }
    }
}
