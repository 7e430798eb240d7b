import Foundation
import OutpostCore

extension MongoCollection {
    /// `POST …/data/<collection>/<action>` as the user (refreshing the access token once on a 401).
    func call(_ action: String, _ fields: [String: JSONValue]) async throws -> JSONValue {
        var body = fields
        body["dataSource"] = .string(database.client.name)
        body["database"] = .string(database.name)
        body["collection"] = .string(name)
        let collection = name.addingPercentEncoding(withAllowedCharacters: .urlPathComponentAllowed) ?? name
        guard let answer = try await user.authorizedRequest(.POST, "data/\(collection)/\(action)", body: .object(body))
        else { throw AppError(.badRequest, "the server's answer to '\(action)' on '\(name)' is empty") }
        return answer
    }

    func findFields(_ filter: Document, _ options: FindOptions, one: Bool) throws(AppError) -> [String: JSONValue] {
        var fields = try options.fields(includeLimit: !one)
        fields["filter"] = try BSONConversion.json(filter, path: "filter")
        return fields
    }

    func find(fields: [String: JSONValue]) async throws -> [Document] {
        try documents(try await call("find", fields), "documents")
    }

    func findOne(fields: [String: JSONValue]) async throws -> Document? {
        let answer = try await call("findOne", fields)
        guard let document = answer.field("document") else { throw malformed("document") }
        if case .null = document { return nil }
        guard case .document(let found) = try BSONConversion.bson(json: document, path: "document") else {
            throw malformed("document")
        }
        return found
    }

    func delete(_ action: String, _ filter: Document) async throws -> Int {
        let answer = try await call(action, ["filter": try BSONConversion.json(filter, path: "filter")])
        guard case .int(let n)? = answer.field("deletedCount") else { throw malformed("deletedCount") }
        return Int(n)
    }

    func update(_ action: String, _ filter: Document, _ update: Document, _ upsert: Bool) async throws -> UpdateResult {
        let answer = try await call(
            action,
            [
                "filter": try BSONConversion.json(filter, path: "filter"),
                "update": try BSONConversion.json(update, path: "update"), "upsert": .bool(upsert),
            ])
        guard case .int(let matched)? = answer.field("matchedCount"),
            case .int(let modified)? = answer.field("modifiedCount")
        else { throw malformed("matchedCount") }
        let upserted = try answer.field("upsertedId").map { json throws(AppError) in
            try BSONConversion.bson(json: json, path: "upsertedId")
        }
        return UpdateResult(
            matchedCount: UInt(max(0, matched)), modifiedCount: UInt(max(0, modified)), documentId: upserted)
    }

    func bson(_ answer: JSONValue, _ field: String) throws -> AnyBSON {
        guard let json = answer.field(field) else { throw malformed(field) }
        return try BSONConversion.bson(json: json, path: field)
    }

    func documents(_ answer: JSONValue, _ field: String) throws -> [Document] {
        guard case .array(let items)? = answer.field(field) else { throw malformed(field) }
        var out: [Document] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .document(let document) = try BSONConversion.bson(json: item, path: field) else {
                throw malformed(field)
            }
            out.append(document)
        }
        return out
    }

    func malformed(_ field: String) -> AppError {
        AppError(.badRequest, "the server's Data API answer on '\(name)' lacks a valid '\(field)'")
    }
}
