/// Reads a `download` message straight from its bytes into ``ServerMessage/download(_:)``, without a
/// ``JSONValue`` tree for the whole message (building that tree and then the changesets from it was a third of the
/// client's CPU while a 100,000-object bootstrap arrived).
///
/// It accepts only what ``ServerMessage/init(text:)`` accepts, and gives the same message. Anything else — another
/// message type, an unknown or repeated key, a value of the wrong kind, an Extended JSON form it does not read itself,
/// a name or version out of range — makes it return nil, and the caller reads the text the general way, which names
/// what is wrong. ``ServerMessage/decode(_:)`` does both.
package struct DownloadMessageReader: JSONTokenReader {
    package var reader: JSONReader

    /// The message, or nil when the text is not a download message in the usual shape or not valid.
    package static func message(_ text: String) -> ServerMessage? {
        var message = DownloadMessageReader(reader: JSONReader(bytes: Array(text.utf8)))
        return message.download()
    }

    /// A download message's envelope — everything but its changesets, which are skipped unread (the message's
    /// `changesets` is empty) — and whether it has any changesets; nil when the text is not a download message in the
    /// usual shape. For a client that keeps the message's text to read its changesets later: they are checked then.
    package static func envelope(_ text: String) -> (message: ServerMessage, hasChangesets: Bool)? {
        var message = DownloadMessageReader(reader: JSONReader(bytes: Array(text.utf8)))
        var hasChangesets = false
        return message.download(skippingChangesets: &hasChangesets).map { ($0, hasChangesets) }
    }

    private mutating func download() -> ServerMessage? {
        var unused = false
        return download(skippingChangesets: &unused, skip: false)
    }

    /// The message; with `skip`, its changesets are skipped unread, and `hasChangesets` says whether there were any.
    private mutating func download(skippingChangesets hasChangesets: inout Bool, skip: Bool = true) -> ServerMessage? {
        guard reader.take("{") else { return nil }
        var isDownload = false
        var session, latest, ack, queryVersion: Int64?
        var cursor: DownloadCursor?
        var batch: DownloadBatchState?
        var changesets: [DownloadChangeset]?
        repeat {
            guard let key = reader.string(), reader.take(":") else { return nil }
            switch key {
            case "type":
                guard !isDownload, reader.string() == "download" else { return nil }
                isDownload = true
            case "session": guard Self.fill(&session, version()) else { return nil }
            case "latestServerVersion": guard Self.fill(&latest, version()) else { return nil }
            case "uploadAck": guard Self.fill(&ack, version()) else { return nil }
            case "queryVersion": guard Self.fill(&queryVersion, version()) else { return nil }
            case "cursor": guard Self.fill(&cursor, self.cursor()) else { return nil }
            case "batch": guard Self.fill(&batch, reader.string().flatMap(DownloadBatchState.init(rawValue:))) else { return nil }
            case "changesets" where skip:
                guard changesets == nil, reader.peek() == UInt8(ascii: "[") else { return nil }
                let start = reader.index
                guard reader.skipContainer() else { return nil }
                var inside = reader  // the same bytes (shared), to look just inside the `[`
                inside.index = start + 1
                hasChangesets = inside.peek() != UInt8(ascii: "]")
                changesets = []
            case "changesets": guard Self.fill(&changesets, array { $0.changeset() }) else { return nil }
            default: return nil
            }
        } while reader.take(",")
        guard reader.take("}"), reader.atEnd, isDownload, let session, let cursor, let latest, let ack, let queryVersion,
            let batch, let changesets
        else { return nil }
        return .download(DownloadMessage(session: session, cursor: cursor, latestServerVersion: latest, uploadAck: ack,
                                         queryVersion: queryVersion, batch: batch, changesets: changesets))
    }

    private mutating func cursor() -> DownloadCursor? {
        guard reader.take("{") else { return nil }
        var serverVersion, clientVersion, salt: Int64?
        repeat {
            guard let key = reader.string(), reader.take(":") else { return nil }
            switch key {
            case "serverVersion": guard Self.fill(&serverVersion, version()) else { return nil }
            case "clientVersion": guard Self.fill(&clientVersion, version()) else { return nil }
            case "salt": guard Self.fill(&salt, version()) else { return nil }
            default: return nil
            }
        } while reader.take(",")
        guard reader.take("}"), let serverVersion, let clientVersion else { return nil }
        return DownloadCursor(serverVersion: serverVersion, clientVersion: clientVersion, salt: salt)
    }

    private mutating func changeset() -> DownloadChangeset? {
        guard reader.take("{") else { return nil }
        var serverVersion, originFileIdent, originClientVersion, timestamp: Int64?
        var instructions: [DownloadInstruction]?
        repeat {
            guard let key = reader.string(), reader.take(":") else { return nil }
            switch key {
            case "serverVersion": guard Self.fill(&serverVersion, version()) else { return nil }
            case "originFileIdent": guard Self.fill(&originFileIdent, version()) else { return nil }
            case "originClientVersion": guard Self.fill(&originClientVersion, version()) else { return nil }
            case "timestamp": guard Self.fill(&timestamp, reader.integer()) else { return nil }
            case "instructions": guard Self.fill(&instructions, array { $0.instruction() }) else { return nil }
            default: return nil
            }
        } while reader.take(",")
        guard reader.take("}"), let serverVersion, let originFileIdent, let originClientVersion, let timestamp,
            let instructions
        else { return nil }
        return DownloadChangeset(serverVersion: serverVersion, originFileIdent: originFileIdent,
                                 originClientVersion: originClientVersion, timestamp: timestamp,
                                 instructions: instructions)
    }

    /// `{"op": "upsert" | "erase", "class": …, "pk": …, "fields": {…}}`, checked as
    /// ``DownloadInstruction/init(json:path:)`` checks it (`fields` is read, and required, for upserts only).
    private mutating func instruction() -> DownloadInstruction? {
        guard reader.take("{") else { return nil }
        var op, className: String?
        var primaryKey: Value?
        var fields: Document?
        repeat {
            guard let key = reader.string(), reader.take(":") else { return nil }
            switch key {
            case "op": guard Self.fill(&op, reader.string()) else { return nil }
            case "class": guard Self.fill(&className, reader.string()) else { return nil }
            case "pk": guard Self.fill(&primaryKey, reader.extendedJSONValue(depth: 0)) else { return nil }
            case "fields": guard Self.fill(&fields, reader.extendedJSONDocument(depth: 0)) else { return nil }
            default: return nil
            }
        } while reader.take(",")
        guard reader.take("}"), let op, let className, JSONFields.isValidName(className), let primaryKey else {
            return nil
        }
        switch op {
        case "upsert": return fields.map { .upsert(className: className, primaryKey: primaryKey, fields: $0) }
        case "erase": return .erase(className: className, primaryKey: primaryKey)
        default: return nil
        }
    }

    /// A version: an integer ≥ 0.
    private mutating func version() -> Int64? {
        guard let v = reader.integer(), v >= 0 else { return nil }
        return v
    }
}

extension ServerMessage {
    /// Parses one message as ``init(text:)`` does, reading `download` messages straight from their bytes
    /// (``DownloadMessageReader``) and anything else, or anything unusual, the general way.
    package static func decode(_ text: String) throws(SyncProtocolError) -> ServerMessage {
        if let download = DownloadMessageReader.message(text) { return download }
        return try ServerMessage(text: text)
    }
}
