import Foundation
import OutpostCore

/// The one place where Realm's ``AnyBSON`` meets OutpostCore's `Value` (the server's document model, sent as
/// Extended JSON).
///
/// | AnyBSON | Value |
/// |---|---|
/// | `.int32`, `.int64` | `.int` (back as `.int64`) |
/// | `.double` | `.double` (a `.float` comes back as `.double`) |
/// | `.string`, `.bool`, `.objectId`, `.decimal128`, `.uuid`, `.null` | the same |
/// | `.binary` | `.data` |
/// | `.datetime` | `.date` |
/// | `.array`, `.document` | `.array`, `.document` (a `nil` entry is `.null`) |
/// | — | `.link` comes back as its primary key |
/// | `.regex`, `.timestamp`, `.minKey`, `.maxKey` | none: converting throws |
enum BSONConversion {
    /// The server form of a value.
    ///
    /// - Parameter path: where the value sits (`filter.age`), for the error message.
    /// - Throws: ``AppError`` `.badRequest` for the BSON types outpost-server does not store.
    static func value(_ bson: AnyBSON?, path: String) throws(AppError) -> Value {
        guard let bson else { return .null }
        switch bson {
        case .null: return .null
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .bool(let v): return .bool(v)
        case .int32(let v): return .int(Int64(v))
        case .int64(let v): return .int(v)
        case .binary(let v): return .data(v)
        case .datetime(let v): return .date(v)
        case .objectId(let v): return .objectId(v)
        case .decimal128(let v): return .decimal128(v)
        case .uuid(let v): return .uuid(v)
        case .document(let d): return .document(try document(d, path: path))
        case .array(let items):
            var out: [Value] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try value(item, path: "\(path)[\(i)]")) }
            return .array(out)
        case .regex: throw unsupported("a regular expression", path)
        case .timestamp: throw unsupported("a timestamp", path)
        case .minKey: throw unsupported("minKey", path)
        case .maxKey: throw unsupported("maxKey", path)
        }
    }

    /// The server form of a document.
    static func document(_ document: Document, path: String) throws(AppError) -> OutpostCore.Document {
        var fields: [String: Value] = [:]
        fields.reserveCapacity(document.count)
        for (key, item) in document {
            fields[key] = try value(item, path: path.isEmpty ? key : "\(path).\(key)")
        }
        return OutpostCore.Document(fields)
    }

    /// The `AnyBSON` of a server value.
    static func bson(_ value: Value) -> AnyBSON {
        switch value {
        case .null: .null
        case .bool(let v): .bool(v)
        case .int(let v): .int64(v)
        case .float(let v): .double(Double(v))
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .binary(v)
        case .date(let v): .datetime(v)
        case .objectId(let v): .objectId(v)
        case .decimal128(let v): .decimal128(v)
        case .uuid(let v): .uuid(v)
        case .array(let items): .array(items.map { bson($0) })
        case .document(let d): .document(document(d))
        case .link(_, let primaryKey): bson(primaryKey)
        }
    }

    /// The Realm form of a server document.
    static func document(_ document: OutpostCore.Document) -> Document {
        document.fields.mapValues { Optional(bson($0)) }
    }

    /// The Extended JSON of a value.
    static func json(_ bson: AnyBSON?, path: String) throws(AppError) -> JSONValue {
        try value(bson, path: path).extendedJSON
    }

    /// The Extended JSON of a document (keys may start with `$`: filters and updates use operators).
    static func json(_ document: Document, path: String) throws(AppError) -> JSONValue {
        Value.document(try self.document(document, path: path)).extendedJSON
    }

    /// Reads an Extended JSON value from the server.
    static func bson(json: JSONValue, path: String) throws(AppError) -> AnyBSON {
        do {
            return bson(try Value(extendedJSON: json, path: path))
        } catch {
            throw AppError(.badRequest, "the server answered invalid Extended JSON: \(error.message)")
        }
    }

    private static func unsupported(_ what: String, _ path: String) -> AppError {
        AppError(.badRequest, "\(path.isEmpty ? "the value" : "'\(path)'") is \(what), which outpost-server does not store")
    }
}
