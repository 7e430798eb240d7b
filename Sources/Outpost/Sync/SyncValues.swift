import Foundation
import OutpostCore

/// Conversions between the client's stored values and the protocol's `Value`s.
enum SyncValues {
    /// The protocol value of a partition value (`.null` for values the server does not store).
    static func value(of bson: AnyBSON) -> Value {
        (try? BSONConversion.value(bson, path: "partitionValue")) ?? .null
    }

    /// The protocol value of a scalar stored value (objects and collections are handled by the caller).
    static func scalar(_ stored: _StoredValue) -> Value {
        switch stored {
        case .null: .null
        case .bool(let v): .bool(v)
        case .int(let v): .int(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .decimal128(let v): .decimal128(v)
        case .uuid(let v): .uuid(v)
        case .object, .list, .dictionary: .null
        }
    }

    /// A primary key as `AnyRealmValue` (for `CompensatingWriteInfo`).
    static func anyRealmValue(_ value: Value) -> AnyRealmValue {
        switch value {
        case .null: .none
        case .bool(let v): .bool(v)
        case .int(let v): .int(Int(v))
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .decimal128(let v): .decimal128(v)
        case .uuid(let v): .uuid(v)
        case .array(let items): .fromArray(items.map(anyRealmValue))
        case .document(let d): .fromDictionary(d.fields.mapValues(anyRealmValue))
        case .link(_, let pk): anyRealmValue(pk)
        }
    }

    /// A Swift value for a query argument or a primary key lookup.
    static func swiftValue(_ value: Value) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let v): v
        case .int(let v): v
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        case .array(let items): items.map(swiftValue)
        case .document(let d): d.fields.mapValues(swiftValue)
        case .link(_, let pk): swiftValue(pk)
        }
    }
}
