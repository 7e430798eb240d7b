import Hummingbird
import OutpostCore

/// Name checks and JSON helpers shared by the Data API and the admin API.
enum DataAPIValidation {
    /// Why a collection or field name is invalid, or nil when it is fine (the rules sync uses too).
    static func problem(withName name: String) -> String? {
        ObjectNames.problem(withClassName: name)
    }

    /// Throws 400 unless `name` is a valid collection name.
    static func checkCollection(_ name: String) throws(APIError) {
        if let problem = problem(withName: name) {
            throw APIError(
                status: .badRequest, errorCode: "InvalidCollectionName", code: "invalidCollectionName",
                message: "invalid collection name \(quoted(name)): it \(problem)")
        }
    }

    /// Throws 400 for an `_id` that is an array (as MongoDB) or a link (`{"$ref", "$id"}`): storage looks primary
    /// keys up as scalars. `path` names the document (`document`, `documents.3`, `upsert`).
    static func checkPrimaryKey(_ id: Value, path: String) throws(APIError) {
        switch id {
        case .array: throw APIError.badRequest("'\(path)._id' must not be an array")
        case .link: throw APIError.badRequest("'\(path)._id' must not be a link")
        default: break
        }
    }

    /// Throws 400 unless every field name of a document (recursively through embedded documents and arrays)
    /// is valid. Stored field names may not contain '.', which separates the parts of a field path.
    static func checkFieldNames(_ json: JSONValue, path: String) throws(APIError) {
        switch json {
        case .object(let fields):
            for (key, value) in fields {
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                if let problem = ObjectNames.problem(withFieldName: key) {
                    throw invalidField(key, at: path, problem)
                }
                // Extended JSON values ({"$oid": …}) are values, not documents.
                if case .object(let inner) = value, inner.keys.contains(where: { $0.hasPrefix("$") }) { continue }
                try checkFieldNames(value, path: keyPath)
            }
        case .array(let items):
            for (index, item) in items.enumerated() { try checkFieldNames(item, path: "\(path)[\(index)]") }
        default:
            break
        }
    }

    /// Throws 400 unless a field path (`a.b.c`) has valid parts.
    static func checkFieldPath(_ path: String, in what: String) throws(APIError) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            if let problem = problem(withName: part) {
                throw APIError(
                    status: .badRequest, errorCode: "InvalidFieldName", code: "invalidFieldName",
                    message: "invalid field path \(quoted(path)) in \(what): each part \(problem)")
            }
        }
    }

    static func invalidField(_ key: String, at path: String, _ problem: String) -> APIError {
        APIError(
            status: .badRequest, errorCode: "InvalidFieldName", code: "invalidFieldName",
            message: "invalid field name \(quoted(key))\(path.isEmpty ? "" : " in '\(path)'"): it \(problem)")
    }

    /// A name quoted for messages, with control characters escaped and long names cut.
    static func quoted(_ name: String) -> String {
        var text = JSONValue.string(String(name.prefix(80))).text
        if name.count > 80 { text += "…" }
        return text
    }

    static func describe(_ json: JSONValue) -> String { json.kindDescription }
}
