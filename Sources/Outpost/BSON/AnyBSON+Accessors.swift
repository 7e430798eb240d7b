import Foundation
import OutpostCore

extension AnyBSON {
    /// The value if this is an `.int32`, else nil.
    public var int32Value: Int32? {
        guard case .int32(let v) = self else { return nil }
        return v
    }

    /// The value if this is an `.int64`, else nil.
    public var int64Value: Int64? {
        guard case .int64(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.regex`, else nil.
    public var regexValue: NSRegularExpression? {
        guard case .regex(let v) = self else { return nil }
        return v
    }

    /// The value if this is an `.objectId`, else nil.
    public var objectIdValue: ObjectId? {
        guard case .objectId(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.datetime`, else nil.
    public var dateValue: Date? {
        guard case .datetime(let v) = self else { return nil }
        return v
    }

    /// The value if this is an `.array`, else nil.
    public var arrayValue: [AnyBSON?]? {
        guard case .array(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.string`, else nil.
    public var stringValue: String? {
        guard case .string(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.document`, else nil.
    public var documentValue: Document? {
        guard case .document(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.bool`, else nil.
    public var boolValue: Bool? {
        guard case .bool(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.binary`, else nil.
    public var binaryValue: Data? {
        guard case .binary(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.double`, else nil.
    public var doubleValue: Double? {
        guard case .double(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.decimal128`, else nil.
    public var decimal128Value: Decimal128? {
        guard case .decimal128(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.timestamp`, else nil.
    public var timestampValue: Date? {
        guard case .timestamp(let v) = self else { return nil }
        return v
    }

    /// The value if this is a `.uuid`, else nil.
    public var uuidValue: UUID? {
        guard case .uuid(let v) = self else { return nil }
        return v
    }

    /// The value as an `Int` when that is lossless (`.int32`, `.int64`, integral `.double`).
    public func asInt() -> Int? {
        switch self {
        case .int32(let v): Int(v)
        case .int64(let v): Int(exactly: v)
        case .double(let v): Int(exactly: v)
        default: nil
        }
    }

    /// The value as an `Int32` when that is lossless.
    public func asInt32() -> Int32? {
        switch self {
        case .int32(let v): v
        case .int64(let v): Int32(exactly: v)
        case .double(let v): Int32(exactly: v)
        default: nil
        }
    }

    /// The value as an `Int64` when that is lossless.
    public func asInt64() -> Int64? {
        switch self {
        case .int32(let v): Int64(v)
        case .int64(let v): v
        case .double(let v): Int64(exactly: v)
        default: nil
        }
    }

    /// The value as a `Double` when that is lossless.
    public func asDouble() -> Double? {
        if case .double(let v) = self { return v }
        return asInt().map(Double.init)
    }

    /// The value as a `Decimal128` (numbers only).
    public func asDecimal128() -> Decimal128? {
        switch self {
        case .decimal128(let v): v
        case .int32(let v): Decimal128(Int64(v))
        case .int64(let v): Decimal128(v)
        case .double(let v): Decimal128(v)
        default: nil
        }
    }

    /// The value as a `T`, when it holds one.
    public func value<T: BSON>() -> T? {
        switch self {
        case .int32(let v):
            if T.self == Int.self { return Int(v) as? T }
            return v as? T
        case .int64(let v):
            if T.self == Int.self { return Int(exactly: v) as? T }
            return v as? T
        case .bool(let v): return v as? T
        case .double(let v): return v as? T
        case .string(let v): return v as? T
        case .binary(let v): return v as? T
        case .datetime(let v): return v as? T
        case .decimal128(let v): return v as? T
        case .objectId(let v): return v as? T
        case .uuid(let v): return v as? T
        case .document(let v): return v as? T
        case .array(let v): return v as? T
        case .regex(let v): return v as? T
        case .maxKey: return MaxKey() as? T
        case .minKey: return MinKey() as? T
        default: return nil
        }
    }
}
