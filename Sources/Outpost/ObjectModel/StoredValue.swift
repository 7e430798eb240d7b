import Foundation
import OutpostCore

/// A property or element value in the form Outpost's storage works with: one case per Realm type,
/// objects by reference. Implementation detail of the persistence protocols; not for direct use.
public enum _StoredValue {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case uuid(UUID)
    case object(ObjectBase)
    /// A nested list inside an `AnyRealmValue`.
    case list([_StoredValue])
    /// A nested dictionary inside an `AnyRealmValue`.
    case dictionary([String: _StoredValue])

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether this is a list or dictionary nested in a mixed value.
    var isNestedCollection: Bool {
        switch self {
        case .list, .dictionary: true
        default: false
        }
    }

    /// A short description of the value for error messages.
    var debugText: String {
        switch self {
        case .null: "null"
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .float(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "'\(v)'"
        case .data(let v): "<\(v.count) bytes>"
        case .date(let v): "\(v)"
        case .objectId(let v): "\(v)"
        case .decimal128(let v): "\(v)"
        case .uuid(let v): v.uuidString
        case .object(let o): "\(type(of: o).className()) object"
        case .list(let l): "[\(l.count) values]"
        case .dictionary(let d): "{\(d.count) entries}"
        }
    }

    /// The Realm type name of the value, for messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "binary"
        case .date: "date"
        case .objectId: "objectId"
        case .decimal128: "decimal128"
        case .uuid: "uuid"
        case .object(let o): "object<\(type(of: o).className())>"
        case .list: "list"
        case .dictionary: "dictionary"
        }
    }
}

extension _StoredValue {
    /// The plain Swift value (`Int`, `String`, an object …), as Realm reports property values.
    var anyValue: Any? { anyValue(object: { $0 }) }

    /// The plain Swift value, with objects mapped by `object` and nils inside collections as `NSNull`.
    func anyValue(object: (ObjectBase) -> Any?) -> Any? {
        switch self {
        case .null: nil
        case .bool(let v): v
        case .int(let v): Int(v)
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        case .object(let o): object(o)
        case .list(let items): items.map { $0.anyValue(object: object) ?? NSNull() }
        case .dictionary(let d): d.mapValues { $0.anyValue(object: object) ?? NSNull() }
        }
    }
}
