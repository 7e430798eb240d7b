import Foundation
import OutpostCore

extension ServerChangesetDraft {
    /// The changeset's stored JSON text: the same shape as its `Codable` form (which ``StorageCoding/decode(_:from:what:)``
    /// reads back), written through ``JSONValue`` instead of `JSONEncoder`, which took about a third of the server's
    /// time when ingesting uploads. A changeset with a compensation (rare) still goes through `JSONEncoder`.
    package func storageText() throws -> String {
        guard compensation == nil else { return try StorageCoding.encode(self, what: "changeset") }
        // Written straight into bytes, keys in sorted order: the text `JSONValue.object(…).text` gave (see
        // `storageJSON`), without a tree per change.
        var out: [UInt8] = []
        out.reserveCapacity(128 + changes.count * 320)
        out.append(UInt8(ascii: "{"))
        if let audience {
            out.append(contentsOf: #""audience":"#.utf8)
            JSONValue.writeInt(audience, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""changes":["#.utf8)
        for (i, change) in changes.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            change.writeStorageJSON(to: &out)
        }
        out.append(contentsOf: #"],"originClientVersion":"#.utf8)
        JSONValue.writeInt(originClientVersion, to: &out)
        out.append(contentsOf: #","originFileIdent":"#.utf8)
        JSONValue.writeInt(originFileIdent, to: &out)
        out.append(contentsOf: #","timestamp":"#.utf8)
        // `JSONEncoder`'s default date strategy: seconds since 2001-01-01.
        JSONValue.double(timestamp.timeIntervalSinceReferenceDate).write(to: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}

extension DocumentChange {
    /// The change as its `Codable` form would encode it (documents and values as Extended JSON).
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

extension DocumentChange {
    /// Appends ``storageJSON``'s compact text (keys sorted: after, before, changedFields, collection, primaryKey).
    func writeStorageJSON(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let after {
            out.append(contentsOf: #""after":"#.utf8)
            after.writeExtendedJSON(to: &out)
            out.append(UInt8(ascii: ","))
        }
        if let before {
            out.append(contentsOf: #""before":"#.utf8)
            before.writeExtendedJSON(to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""changedFields":["#.utf8)
        for (i, field) in changedFields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(field, to: &out)
        }
        out.append(contentsOf: #"],"collection":"#.utf8)
        JSONValue.writeString(collection, to: &out)
        out.append(contentsOf: #","primaryKey":"#.utf8)
        primaryKey.writeExtendedJSON(to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
