import Foundation

/// A value in Outpost's document model, shared by the client and the server.
///
/// Documents are what the query evaluator, the sync protocol and the server's storage work with.
/// The cases mirror Realm's property types; `link` refers to another object by class and primary key.
public enum Value: Hashable, Sendable {
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
    /// A list or set.
    case array([Value])
    /// A map or an embedded object.
    case document(Document)
    /// A link to an object of `className` identified by its primary key.
    indirect case link(className: String, primaryKey: Value)

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The name of the value's type as Realm prints it in messages (`int`, `string`, …).
    public var typeName: String {
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
        case .array: "array"
        case .document: "object"
        case .link: "link"
        }
    }
}
