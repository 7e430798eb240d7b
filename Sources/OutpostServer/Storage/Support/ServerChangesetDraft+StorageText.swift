import Foundation
import OutpostCore

extension ServerChangesetDraft {
    /// The changeset's stored JSON text: the same shape as its `Codable` form (which ``StorageCoding/decode(_:from:what:)``
    /// reads back), written through ``JSONValue`` instead of `JSONEncoder`, which took about a third of the server's
    /// time when ingesting uploads. A changeset with a compensation (rare) still goes through `JSONEncoder`.
    package func storageText() throws -> String {
        guard compensation == nil else { return try StorageCoding.encode(self, what: "changeset") }
        var fields: [String: JSONValue] = [
            "originFileIdent": .int(originFileIdent), "originClientVersion": .int(originClientVersion),
            // `JSONEncoder`'s default date strategy: seconds since 2001-01-01.
            "timestamp": .double(timestamp.timeIntervalSinceReferenceDate),
            "changes": .array(changes.map(\.storageJSON)),
        ]
        if let audience { fields["audience"] = .int(audience) }
        return JSONValue.object(fields).text
    }
}

extension DocumentChange {
    /// The change as its `Codable` form would encode it (documents and values as Extended JSON).
    var storageJSON: JSONValue {
        var fields: [String: JSONValue] = [
            "collection": .string(collection), "primaryKey": primaryKey.extendedJSON,
            "changedFields": .array(changedFields.map { .string($0) }),
        ]
        if let before { fields["before"] = before.extendedJSON }
        if let after { fields["after"] = after.extendedJSON }
        return .object(fields)
    }
}
