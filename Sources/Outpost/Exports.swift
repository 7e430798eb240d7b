// What `import Outpost` brings of OutpostCore: Realm Swift's names that OutpostCore defines (the server shares them),
// and the OutpostCore types Outpost's own public API takes or throws. The sync wire protocol, the rules, the JSON
// internals, `Value` and OutpostCore's `Document` stay out of an app's namespace (`import OutpostCore` for them).
// Outpost's own files import OutpostCore themselves. The list and its reasons: docs/public-api.md, "What `import
// Outpost` brings".

// Realm Swift's names.
@_exported import struct OutpostCore.Decimal128
@_exported import struct OutpostCore.ObjectId
@_exported import struct OutpostCore.ObjectSchema
@_exported import struct OutpostCore.Property
@_exported import enum OutpostCore.PropertyType
@_exported import struct OutpostCore.Schema
@_exported import struct OutpostCore.StringOptions

// Outpost's additions: `filter(_: QueryPredicate)`; `filter(checked:_:)` throws `QueryError`, `ObjectId(string:)` and
// `Decimal128(string:)` throw `ValueError`.
@_exported import struct OutpostCore.QueryError
@_exported import struct OutpostCore.QueryPredicate
@_exported import struct OutpostCore.ValueError
