import Foundation
import OutpostCore

/// A BSON value, as in Realm Swift: what ``MongoCollection`` reads and writes, and what ``User/customData`` holds.
///
/// ```swift
/// let doc: Document = ["name": "Rex", "age": 3, "tags": ["a", "b"], "owner": .objectId(ownerId)]
/// doc["age"]??.int64Value   // 3
/// ```
///
/// outpost-server stores the value types of Realm's object model. `.regex`, `.timestamp`, `.minKey` and `.maxKey`
/// exist so Realm code compiles, but sending one to the server fails with ``AppError/Code-swift.enum/badRequest``
/// naming the field; `.int32` values come back as `.int64` (the server keeps one integer type).
public enum AnyBSON: BSON, Hashable, @unchecked Sendable {
    // @unchecked Sendable: every payload is an immutable value; NSRegularExpression is immutable once created.

    /// A BSON double.
    case double(Double)
    /// A BSON string.
    case string(String)
    /// A BSON document.
    indirect case document(Document)
    /// A BSON array.
    indirect case array([AnyBSON?])
    /// A BSON binary.
    case binary(Data)
    /// A BSON ObjectId.
    case objectId(ObjectId)
    /// A BSON boolean.
    case bool(Bool)
    /// A BSON UTC datetime.
    case datetime(Date)
    /// A BSON regular expression (not stored by outpost-server).
    case regex(NSRegularExpression)
    /// A BSON int32.
    case int32(Int32)
    /// A BSON timestamp (not stored by outpost-server).
    case timestamp(Date)
    /// A BSON int64.
    case int64(Int64)
    /// A BSON Decimal128.
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A BSON minKey (not stored by outpost-server).
    case minKey
    /// A BSON maxKey (not stored by outpost-server).
    case maxKey
    /// A BSON null.
    case null

    /// An integer: `.int64` on 64-bit platforms, `.int32` on 32-bit ones.
    public init(_ int: Int) {
        if MemoryLayout<Int>.size == 4 {
            self = .int32(Int32(int))
        } else {
            self = .int64(Int64(int))
        }
    }

    /// The `AnyBSON` of a ``BSON`` value; `.null` for a value that is none of the BSON types.
    public init<T: BSON>(_ bson: T) {
        switch bson {
        case let v as Int: self = AnyBSON(v)
        case let v as Int32: self = .int32(v)
        case let v as Int64: self = .int64(v)
        case let v as Double: self = .double(v)
        case let v as String: self = .string(v)
        case let v as Data: self = .binary(v)
        case let v as Date: self = .datetime(v)
        case let v as Decimal128: self = .decimal128(v)
        case let v as UUID: self = .uuid(v)
        case let v as ObjectId: self = .objectId(v)
        case let v as Document: self = .document(v)
        case let v as [AnyBSON?]: self = .array(v)
        case let v as Bool: self = .bool(v)
        case let v as NSRegularExpression: self = .regex(v)
        case is MaxKey: self = .maxKey
        case is MinKey: self = .minKey
        case let v as AnyBSON: self = v
        default: self = .null
        }
    }

    /// True for `.null`.
    public var isNull: Bool { self == .null }
}
