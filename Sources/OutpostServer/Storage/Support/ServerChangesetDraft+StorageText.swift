import Foundation
import OutpostCore

extension ServerChangesetDraft {
    /// The changeset's stored JSON text: the same shape as its `Codable` form (which ``StorageCoding/decode(_:from:what:)``
    /// reads back), written through ``JSONValue`` instead of `JSONEncoder`, which took about a third of the server's
    /// time when ingesting uploads. A changeset with a compensation (rare) still goes through `JSONEncoder`.
    package func storageText() throws -> String {
        guard compensation == nil else { return try StorageCoding.encode(self, what: "changeset") }
        var out: [UInt8] = []
        out.reserveCapacity(256)
        var o = JSONObjectWriter(&out)
        if let audience { o.int("audience", audience, &out) }
        o.key("changes", &out)
        out.append(0x5B)
        for (i, change) in changes.enumerated() {
            if i > 0 { out.append(0x2C) }
            change.writeStorageJSON(to: &out)
        }
        out.append(0x5D)
        o.int("originClientVersion", originClientVersion, &out)
        o.int("originFileIdent", originFileIdent, &out)
        // `JSONEncoder`'s default date strategy: seconds since 2001-01-01.
        o.key("timestamp", &out)
        JSONValue.double(timestamp.timeIntervalSinceReferenceDate).write(to: &out)
        o.end(&out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension DocumentChange {
    /// The change as its `Codable` form would encode it (documents and values as Extended JSON), keys sorted.
    func writeStorageJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter(&out)
        if let after {
            o.key("after", &out)
            if let afterText { out.append(contentsOf: afterText.utf8) } else { after.writeExtendedJSON(to: &out) }
        }
        if let before {
            o.key("before", &out)
            before.writeExtendedJSON(to: &out)
        }
        o.key("changedFields", &out)
        out.append(0x5B)
        for (i, field) in changedFields.enumerated() {
            if i > 0 { out.append(0x2C) }
            JSONValue.writeString(field, to: &out)
        }
        out.append(0x5D)
        o.string("collection", collection, &out)
        o.key("primaryKey", &out)
        primaryKey.writeExtendedJSON(to: &out)
        o.end(&out)
    }
}

extension DocumentChange {
    /// The change as a `JSONValue` tree (the reference form ``writeStorageJSON(to:)`` must equal byte for byte).
    package var storageJSON: JSONValue {
        var fields: [String: JSONValue] = [
            "collection": .string(collection), "primaryKey": primaryKey.extendedJSON,
            "changedFields": .array(changedFields.map { .string($0) }),
        ]
        if let before { fields["before"] = before.extendedJSON }
        if let after { fields["after"] = after.extendedJSON }
        return .object(fields)
    }
}
