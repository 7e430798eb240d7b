import Foundation
import OutpostCore

extension ServerChangesetDraft {
    /// The changeset's stored JSON text: the same shape as its `Codable` form (which ``StorageCoding/decode(_:from:what:)``
    /// reads back), written through ``JSONValue`` instead of `JSONEncoder`, which took about a third of the server's
    /// time when ingesting uploads. A changeset with a compensation (rare) still goes through `JSONEncoder`.
    package func storageText() throws -> String {
        guard compensation == nil else { return try StorageCoding.encode(self, what: "changeset") }
        return String(decoding: try storageBytes(), as: UTF8.self)
    }

    /// ``storageText()`` as UTF-8 bytes, for storage that binds them in place (the SQLite commit): a large
    /// changeset's text is not copied into a `String` and checked again. The buffer is reserved for the whole text
    /// up front (2,000 events are ≈ 700 KB; growing by doubling copied it a dozen times and touched fresh pages at
    /// each step).
    package func storageBytes() throws -> [UInt8] {
        guard compensation == nil else { return Array(try StorageCoding.encode(self, what: "changeset").utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(estimatedStorageSize)
        var o = JSONObjectWriter(&out)
        if let audience { o.int("audience", audience, &out) }
        o.key("changes", &out)
        out.append(0x5B)
        // By index, not `for change in changes`: that copied every change (a retain per document and string).
        // Consecutive changes of the same collection share its written name.
        var collection = CollectionName()
        for i in changes.indices {
            if i > 0 { out.append(0x2C) }
            changes[i].writeStorageJSON(to: &out, collection: &collection)
        }
        out.append(0x5D)
        o.int("originClientVersion", originClientVersion, &out)
        o.int("originFileIdent", originFileIdent, &out)
        // `JSONEncoder`'s default date strategy: seconds since 2001-01-01.
        o.key("timestamp", &out)
        JSONValue.double(timestamp.timeIntervalSinceReferenceDate).write(to: &out)
        o.end(&out)
        return out
    }

    /// About the size of the stored text: each change's document text when it has one (twice its size otherwise,
    /// with its field names), plus its key and names.
    private var estimatedStorageSize: Int {
        var size = 128
        for change in changes {
            size += 96 + change.collection.utf8.count * 2
            if let text = change.afterText { size += text.utf8.count } else if change.after != nil { size += 256 }
            if change.before != nil { size += 256 }
            for field in change.changedFields { size += field.utf8.count + 3 }
        }
        return size
    }
}

extension ServerChangesetDraft {
    /// Reads a stored changeset's text. The shape ``storageText()`` writes is read through Outpost's own JSON reader
    /// instead of Foundation's `JSONDecoder` (its `Codable` machinery showed in `perf` when a hundred sessions read
    /// a changeset back; every changeset a session downloads that is not in the sync hub's memory — a reconnecting
    /// client's backlog, another process's commits — is read this way).
    /// Anything else — a compensation, a key this reader does not know, a wrong type — goes through
    /// ``StorageCoding/decode(_:from:what:)``, which gives the same value or the error.
    package static func fromStorageText(_ text: String) throws -> ServerChangesetDraft {
        if let draft = read(storageText: text) { return draft }
        return try StorageCoding.decode(ServerChangesetDraft.self, from: text, what: "changeset")
    }

    /// The direct reading of ``fromStorageText(_:)``: nil for any shape but the one ``storageText()`` writes
    /// without a compensation.
    package static func read(storageText text: String) -> ServerChangesetDraft? {
        guard case .object(let fields)? = JSONValue.parse(text), fields["compensation"] == nil,
            case .int(let originFileIdent)? = fields["originFileIdent"],
            case .int(let originClientVersion)? = fields["originClientVersion"],
            case .array(let items)? = fields["changes"]
        else { return nil }
        let timestamp: Double
        switch fields["timestamp"] {
        case .double(let seconds)?: timestamp = seconds
        case .int(let seconds)?: timestamp = Double(seconds)
        default: return nil
        }
        var audience: Int64?
        switch fields["audience"] {
        case nil: audience = nil
        case .int(let file)?: audience = file
        default: return nil
        }
        guard fields.count == (audience == nil ? 4 : 5) else { return nil }
        var changes: [DocumentChange] = []
        changes.reserveCapacity(items.count)
        for item in items {
            guard let change = DocumentChange.read(item) else { return nil }
            changes.append(change)
        }
        return ServerChangesetDraft(
            originFileIdent: originFileIdent, originClientVersion: originClientVersion,
            timestamp: Date(timeIntervalSinceReferenceDate: timestamp), audience: audience, changes: changes)
    }
}

extension DocumentChange {
    /// A change as ``writeStorageJSON(to:collection:)`` writes it; nil for any other shape.
    fileprivate static func read(_ json: JSONValue) -> DocumentChange? {
        guard case .object(let fields) = json, case .string(let collection)? = fields["collection"] else { return nil }
        var before: Document?, after: Document?
        if let json = fields["before"] {
            guard let document = try? Document(extendedJSON: json) else { return nil }
            before = document
        }
        if let json = fields["after"] {
            guard let document = try? Document(extendedJSON: json) else { return nil }
            after = document
        }
        // A new document's stored form leaves out its key and changed fields (`isWholeNewDocument`).
        let primaryKey: Value
        if let key = fields["primaryKey"] {
            guard let value = try? Value(extendedJSON: key) else { return nil }
            primaryKey = value
        } else {
            guard before == nil, let id = after?["_id"] else { return nil }
            primaryKey = id
        }
        var changedFields: [String] = []
        if let list = fields["changedFields"] {
            guard case .array(let names) = list else { return nil }
            changedFields.reserveCapacity(names.count)
            for name in names {
                guard case .string(let field) = name else { return nil }
                changedFields.append(field)
            }
        } else {
            guard before == nil, let after else { return nil }
            changedFields = after.sortedKeys
        }
        let stated = (fields["primaryKey"] == nil ? 0 : 1) + (fields["changedFields"] == nil ? 0 : 1)
        guard fields.count == 1 + stated + (before == nil ? 0 : 1) + (after == nil ? 0 : 1) else { return nil }
        var change = DocumentChange(collection: collection, primaryKey: primaryKey, before: before, after: after,
                                    changedFields: changedFields)
        change.isWholeNewDocument = stated == 0
        return change
    }

    /// The change as its `Codable` form would encode it (documents and values as Extended JSON), keys sorted. The
    /// collection's name is written once for a run of changes of the same one.
    fileprivate func writeStorageJSON(to out: inout [UInt8], collection name: inout CollectionName) {
        var o = JSONObjectWriter(&out)
        if let after {
            o.key(fixed: "after", &out)
            if let afterText { out.append(contentsOf: afterText.utf8) } else { after.writeExtendedJSON(to: &out) }
        }
        if let before {
            o.key(fixed: "before", &out)
            before.writeExtendedJSON(to: &out)
        }
        let compact = isStoredCompactly
        if !compact {
            o.key(fixed: "changedFields", &out)
            out.append(0x5B)
            for i in changedFields.indices {
                if i > 0 { out.append(0x2C) }
                JSONValue.writeString(changedFields[i], to: &out)
            }
            out.append(0x5D)
        }
        o.key(fixed: "collection", &out)
        name.write(collection, to: &out)
        if !compact {
            o.key(fixed: "primaryKey", &out)
            primaryKey.writeExtendedJSON(to: &out)
        }
        o.end(&out)
    }
}

/// The last collection name written as a JSON string, kept while a changeset's changes are written (most of a
/// changeset's changes are in one collection).
private struct CollectionName {
    private var name: String?
    private var json: [UInt8] = []

    mutating func write(_ collection: String, to out: inout [UInt8]) {
        if collection != name {
            json.removeAll(keepingCapacity: true)
            JSONValue.writeString(collection, to: &json)
            name = collection
        }
        out.append(contentsOf: json)
    }
}

extension DocumentChange {
    /// Whether the stored text leaves out the key and changed fields: a new document's are its `_id` and keys
    /// (``isWholeNewDocument``), which readers take from `after`.
    fileprivate var isStoredCompactly: Bool { isWholeNewDocument && before == nil && after != nil }

    /// The change as a `JSONValue` tree (the reference form ``writeStorageJSON(to:collection:)`` must equal byte for
    /// byte).
    package var storageJSON: JSONValue {
        var fields: [String: JSONValue] = ["collection": .string(collection)]
        if !isStoredCompactly {
            fields["primaryKey"] = primaryKey.extendedJSON
            fields["changedFields"] = .array(changedFields.map { .string($0) })
        }
        if let before { fields["before"] = before.extendedJSON }
        if let after { fields["after"] = after.extendedJSON }
        return .object(fields)
    }
}
