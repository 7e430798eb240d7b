/// Direct UTF-8 writers for the sync messages that carry documents (`upload`, `download`): the same bytes as
/// their `json.text`, without building the ``JSONValue`` tree first. Keys are written in sorted order.
extension ClientMessage {
    /// The message as one line of JSON text.
    public var text: String {
        guard case .upload(let session, let changesets) = self else { return json.text }
        return Self.uploadText(session: session, changesets, capacity: 256) { $0.writeJSON(to: &$1) }
    }

    /// The text of an `upload` message whose changesets are already written as `UploadChangeset` JSON texts (the
    /// client's queue stores them that way): the same text as `.upload(session:changesets:).text`.
    package static func uploadText(session: Int64, changesetTexts: [String]) -> String {
        uploadText(session: session, changesetTexts, capacity: changesetTexts.reduce(64) { $0 + $1.utf8.count + 1 }) {
            $1.append(contentsOf: $0.utf8)
        }
    }

    /// The `upload` envelope around changesets that `write` appends.
    private static func uploadText<T>(
        session: Int64, _ changesets: [T], capacity: Int, _ write: (T, inout [UInt8]) -> Void
    ) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        var o = JSONObjectWriter(&out)
        o.key("changesets", &out)
        writeJSONArray(changesets, to: &out, write)
        o.int("session", session, &out)
        o.string("type", "upload", &out)
        o.end(&out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension UploadChangeset {
    /// The changeset's JSON text (the same as `json.text`).
    package var jsonText: String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        writeJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension ServerMessage {
    /// The message as one line of JSON text.
    public var text: String {
        guard case .download(let d) = self else { return json.text }
        return Self.downloadText(
            session: d.session, cursor: d.cursor, latestServerVersion: d.latestServerVersion, uploadAck: d.uploadAck,
            queryVersion: d.queryVersion, batch: d.batch, d.changesets, capacity: 256) { $0.writeJSON(to: &$1) }
    }

    /// The text of a `download` message whose changesets are already written as `DownloadChangeset` JSON (the
    /// server shares them between sessions): the same text as `.download(…).text`.
    package static func downloadText(
        session: Int64, cursor: DownloadCursor, latestServerVersion: Int64, uploadAck: Int64, queryVersion: Int64,
        batch: DownloadBatchState, changesetJSON: [[UInt8]]
    ) -> String {
        downloadText(
            session: session, cursor: cursor, latestServerVersion: latestServerVersion, uploadAck: uploadAck,
            queryVersion: queryVersion, batch: batch, changesetJSON, capacity: changesetJSON.reduce(256) { $0 + $1.count + 1 }
        ) { $1.append(contentsOf: $0) }
    }

    /// The `download` envelope around changesets that `write` appends.
    private static func downloadText<T>(
        session: Int64, cursor: DownloadCursor, latestServerVersion: Int64, uploadAck: Int64, queryVersion: Int64,
        batch: DownloadBatchState, _ changesets: [T], capacity: Int, _ write: (T, inout [UInt8]) -> Void
    ) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        var o = JSONObjectWriter(&out)
        o.string("batch", batch.rawValue, &out)
        o.key("changesets", &out)
        writeJSONArray(changesets, to: &out, write)
        o.key("cursor", &out)
        cursor.writeJSON(to: &out)
        o.int("latestServerVersion", latestServerVersion, &out)
        o.int("queryVersion", queryVersion, &out)
        o.int("session", session, &out)
        o.string("type", "download", &out)
        o.int("uploadAck", uploadAck, &out)
        o.end(&out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// Writes `[item,item,…]`, each item by `write`. Inlinable, so that other modules' calls are specialized (a
/// generic call from another module looked up type metadata for every item).
@inlinable
package func writeJSONArray<T>(_ items: [T], to out: inout [UInt8], _ write: (T, inout [UInt8]) -> Void) {
    out.append(0x5B)
    for i in items.indices {
        if i > 0 { out.append(0x2C) }
        write(items[i], &out)
    }
    out.append(0x5D)
}

extension DownloadCursor {
    package func writeJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter(&out)
        o.int("clientVersion", clientVersion, &out)
        if let salt { o.int("salt", salt, &out) }
        o.int("serverVersion", serverVersion, &out)
        o.end(&out)
    }
}

extension UploadChangeset {
    package func writeJSON(to out: inout [UInt8]) {
        Self.writeJSON(clientVersion: clientVersion, lastServerVersion: lastServerVersion, timestamp: timestamp,
                       to: &out) { writeJSONArray(instructions, to: &$0) { $0.writeJSON(to: &$1) } }
    }

    /// A changeset's JSON whose instructions array (`[…]`) `instructions` writes: for a client that writes its
    /// instructions straight from its rows instead of building ``SyncInstruction`` values.
    package static func writeJSON(
        clientVersion: Int64, lastServerVersion: Int64, timestamp: Int64, to out: inout [UInt8],
        instructions: (inout [UInt8]) -> Void
    ) {
        var o = JSONObjectWriter(&out)
        o.int("clientVersion", clientVersion, &out)
        o.key("instructions", &out)
        instructions(&out)
        o.int("lastServerVersion", lastServerVersion, &out)
        o.int("timestamp", timestamp, &out)
        o.end(&out)
    }
}

extension DownloadChangeset {
    package func writeJSON(to out: inout [UInt8]) {
        Self.writeJSON(serverVersion: serverVersion, originFileIdent: originFileIdent,
                       originClientVersion: originClientVersion, timestamp: timestamp, to: &out) { out in
            writeJSONArray(instructions, to: &out) { $0.writeJSON(to: &$1) }
        }
    }

    /// A changeset's JSON whose instructions array (`[…]`) `instructions` writes: for a server that writes some
    /// instructions straight from stored text (subscription bootstraps) instead of building
    /// ``DownloadInstruction`` values.
    package static func writeJSON(
        serverVersion: Int64, originFileIdent: Int64, originClientVersion: Int64, timestamp: Int64,
        to out: inout [UInt8], instructions: (inout [UInt8]) -> Void
    ) {
        var o = JSONObjectWriter(&out)
        o.key("instructions", &out)
        instructions(&out)
        o.int("originClientVersion", originClientVersion, &out)
        o.int("originFileIdent", originFileIdent, &out)
        o.int("serverVersion", serverVersion, &out)
        o.int("timestamp", timestamp, &out)
        o.end(&out)
    }
}

extension DownloadInstruction {
    package func writeJSON(to out: inout [UInt8]) {
        switch self {
        case .upsert(let className, let primaryKey, let fields):
            Self.writeUpsert(className: className, to: &out, fields: { fields.writeExtendedJSON(to: &$0) },
                             primaryKey: { primaryKey.writeExtendedJSON(to: &$0) })
        case .erase(let className, let primaryKey):
            var o = JSONObjectWriter(&out)
            o.string("class", className, &out)
            o.string("op", "erase", &out)
            o.key("pk", &out)
            primaryKey.writeExtendedJSON(to: &out)
            o.end(&out)
        }
    }

    /// An `upsert` whose fields and primary key are Extended JSON texts already (a stored document's body and its
    /// key text): the same bytes as `.upsert(…).writeJSON` when the texts are the `extendedJSONText` of the fields
    /// and the key.
    package static func writeUpsert(className: String, fieldsText: String, primaryKeyText: String, to out: inout [UInt8]) {
        writeUpsert(className: className, to: &out, fields: { $0.append(contentsOf: fieldsText.utf8) },
                    primaryKey: { $0.append(contentsOf: primaryKeyText.utf8) })
    }

    private static func writeUpsert(
        className: String, to out: inout [UInt8], fields: (inout [UInt8]) -> Void, primaryKey: (inout [UInt8]) -> Void
    ) {
        var o = JSONObjectWriter(&out)
        o.string("class", className, &out)
        o.key("fields", &out)
        fields(&out)
        o.string("op", "upsert", &out)
        o.key("pk", &out)
        primaryKey(&out)
        o.end(&out)
    }
}

extension SyncInstruction {
    package func writeJSON(to out: inout [UInt8]) {
        var field: String?
        var fields: Document?
        var from: Int?
        var index: Int?
        var key: String?
        var to: Int?
        var value: Value?
        switch self {
        case .create(_, _, let d): fields = d
        case .set(_, _, let f, let v): field = f; value = v
        case .erase: break
        case .listInsert(_, _, let f, let i, let v), .listSet(_, _, let f, let i, let v): field = f; index = i; value = v
        case .listErase(_, _, let f, let i): field = f; index = i
        case .listMove(_, _, let f, let a, let b): field = f; from = a; to = b
        case .clear(_, _, let f): field = f
        case .setAdd(_, _, let f, let v), .setRemove(_, _, let f, let v): field = f; value = v
        case .mapSet(_, _, let f, let k, let v): field = f; key = k; value = v
        case .mapErase(_, _, let f, let k): field = f; key = k
        }
        var o = JSONObjectWriter(&out)
        o.string("class", className, &out)
        if let field { o.string("field", field, &out) }
        if let fields {
            o.key("fields", &out)
            fields.writeExtendedJSON(to: &out)
        }
        if let from { o.int("from", Int64(from), &out) }
        if let index { o.int("index", Int64(index), &out) }
        if let key { o.string("key", key, &out) }
        o.string("op", op, &out)
        if !createOmitsPrimaryKey {
            o.key("pk", &out)
            primaryKey.writeExtendedJSON(to: &out)
        }
        if let to { o.int("to", Int64(to), &out) }
        if let value {
            o.key("value", &out)
            value.writeExtendedJSON(to: &out)
        }
        o.end(&out)
    }
}
