import Foundation
import OutpostCore

/// Converts stored values to and from SQLite columns (scalars) and JSON (collection elements and
/// `AnyRealmValue`). The formats are documented in docs/storage.md.
///
/// Hot path (every managed property read and write, the insert buffer, query binding): stored values and columns meet
/// here directly, not through `Value` (docs/value-model.md), which would add a conversion to each of them.
enum ValueCoding {
    // MARK: Scalars in their own column

    /// The column value for a scalar property. Links are handled by the caller (they need a Realm).
    static func column(_ value: _StoredValue) -> SQLiteValue {
        switch value {
        case .null: .null
        case .bool(let v): .integer(v ? 1 : 0)
        case .int(let v): .integer(v)
        case .float(let v): .real(Double(v))
        case .double(let v): .real(v)
        case .string(let v): .text(v)
        case .data(let v): .blob([UInt8](v))
        case .date(let v): .real(v.timeIntervalSinceReferenceDate)
        case .objectId(let v): .blob(v.bytes)
        case .decimal128(let v): .text(v.stringValue)
        case .uuid(let v): .blob(withUnsafeBytes(of: v.uuid) { Array($0) })
        case .object, .list, .dictionary: .null
        }
    }

    /// The scalar value of a column of type `type` (not links, not mixed).
    static func scalar(_ value: SQLiteValue, type: PropertyType) -> _StoredValue {
        switch (type, value) {
        case (_, .null): return .null
        case (.bool, .integer(let v)): return .bool(v != 0)
        case (.int, .integer(let v)): return .int(v)
        case (.int, .real(let v)): return .int(Int64(v))
        case (.float, .real(let v)): return .float(Float(v))
        case (.float, .integer(let v)): return .float(Float(v))
        case (.double, .real(let v)): return .double(v)
        case (.double, .integer(let v)): return .double(Double(v))
        case (.string, .text(let v)): return .string(v)
        case (.data, .blob(let v)): return .data(Data(v))
        case (.date, .real(let v)): return .date(Date(timeIntervalSinceReferenceDate: v))
        case (.date, .integer(let v)): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case (.objectId, .blob(let v)): return (try? ObjectId(bytes: v)).map { .objectId($0) } ?? .null
        case (.decimal128, .text(let v)): return (try? Decimal128(string: v)).map { .decimal128($0) } ?? .null
        case (.uuid, .blob(let v)) where v.count == 16:
            return .uuid(UUID(uuid: (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
                                     v[12], v[13], v[14], v[15])))
        default: return .null
        }
    }

    // MARK: JSON elements

    /// A JSON element of a typed collection. Links are encoded by the caller as their rowid.
    static func jsonElement(_ value: _StoredValue, type: PropertyType, link: (ObjectBase) -> Int64?) -> JSONValue {
        if type == .mixed { return mixed(value, link: link) }
        switch value {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .float(let v): return .double(Double(v))
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .data(let v): return .string(v.base64EncodedString())
        case .date(let v): return .double(v.timeIntervalSinceReferenceDate)
        case .objectId(let v): return .string(v.stringValue)
        case .decimal128(let v): return .string(v.stringValue)
        case .uuid(let v): return .string(v.uuidString.lowercased())
        case .object(let o): return link(o).map { .int($0) } ?? .null
        case .list, .dictionary: return .null
        }
    }

    /// The element of a typed collection from JSON. Links are resolved by the caller from the rowid.
    static func element(_ json: JSONValue, type: PropertyType, link: (Int64) -> ObjectBase?) -> _StoredValue {
        if type == .mixed { return mixed(json, link: link) }
        switch (type, json) {
        case (_, .null): return .null
        case (.bool, .bool(let v)): return .bool(v)
        case (.bool, .int(let v)): return .bool(v != 0)
        case (.int, .int(let v)): return .int(v)
        case (.int, .double(let v)): return .int(Int64(v))
        case (.float, .double(let v)): return .float(Float(v))
        case (.float, .int(let v)): return .float(Float(v))
        case (.double, .double(let v)): return .double(v)
        case (.double, .int(let v)): return .double(Double(v))
        case (.string, .string(let v)): return .string(v)
        case (.data, .string(let v)): return Data(base64Encoded: v).map { .data($0) } ?? .null
        case (.date, .double(let v)): return .date(Date(timeIntervalSinceReferenceDate: v))
        case (.date, .int(let v)): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case (.objectId, .string(let v)): return (try? ObjectId(string: v)).map { .objectId($0) } ?? .null
        case (.decimal128, .string(let v)): return (try? Decimal128(string: v)).map { .decimal128($0) } ?? .null
        case (.uuid, .string(let v)): return UUID(uuidString: v).map { .uuid($0) } ?? .null
        case (.object, .int(let v)): return link(v).map { .object($0) } ?? .null
        default: return .null
        }
    }

    /// `AnyRealmValue` as tagged JSON: plain JSON for null, bool, int, double and string; an object with
    /// one `$`-key for the other types.
    static func mixed(_ value: _StoredValue, link: (ObjectBase) -> Int64?) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .float(let v): return .object(["$float": .double(Double(v))])
        case .data(let v): return .object(["$binary": .string(v.base64EncodedString())])
        case .date(let v): return .object(["$date": .double(v.timeIntervalSinceReferenceDate)])
        case .objectId(let v): return .object(["$oid": .string(v.stringValue)])
        case .decimal128(let v): return .object(["$decimal": .string(v.stringValue)])
        case .uuid(let v): return .object(["$uuid": .string(v.uuidString.lowercased())])
        case .object(let o):
            guard let rowid = link(o) else { return .null }
            // A DynamicObject's class is its row's.
            return .object(["$link": .array([.string(o._row?.table.className ?? type(of: o).className()), .int(rowid)])])
        case .list(let items): return .array(items.map { mixed($0, link: link) })
        case .dictionary(let d): return .object(["$map": .object(d.mapValues { mixed($0, link: link) })])
        }
    }

    static func mixed(_ json: JSONValue, link: (Int64) -> ObjectBase?) -> _StoredValue {
        mixed(json) { _, rowid in link(rowid) }
    }

    static func mixed(_ json: JSONValue, link: (String, Int64) -> ObjectBase?) -> _StoredValue {
        switch json {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .array(let items): return .list(items.map { mixed($0, link: link) })
        case .object(let fields):
            guard fields.count == 1, let (key, inner) = fields.first else { return .null }
            switch (key, inner) {
            case ("$float", .double(let v)): return .float(Float(v))
            case ("$float", .int(let v)): return .float(Float(v))
            case ("$binary", .string(let v)): return Data(base64Encoded: v).map { .data($0) } ?? .null
            case ("$date", .double(let v)): return .date(Date(timeIntervalSinceReferenceDate: v))
            case ("$date", .int(let v)): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
            case ("$oid", .string(let v)): return (try? ObjectId(string: v)).map { .objectId($0) } ?? .null
            case ("$decimal", .string(let v)): return (try? Decimal128(string: v)).map { .decimal128($0) } ?? .null
            case ("$uuid", .string(let v)): return UUID(uuidString: v).map { .uuid($0) } ?? .null
            case ("$link", .array(let parts)):
                guard parts.count == 2, case .string(let cls) = parts[0], case .int(let rowid) = parts[1] else {
                    return .null
                }
                return link(cls, rowid).map { .object($0) } ?? .null
            case ("$map", .object(let d)): return .dictionary(d.mapValues { mixed($0, link: link) })
            default: return .null
            }
        }
    }
}
