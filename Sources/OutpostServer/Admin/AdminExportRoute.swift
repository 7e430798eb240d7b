import Foundation
import Hummingbird
import NIOCore
import OutpostCore

/// The admin export endpoints `outpost-server export-data` reads (admin key):
/// - `GET collections/<name>/export?after=<key>&limit=<n>`: one page of the collection's documents as stored
///   (Extended JSON), in key order, with `next` (the page's last key; null on the last page) and `server_version`,
///   the latest version when the page was read;
/// - `GET collections/<name>/changes?after=<version>`: the state, at the `server_version` it answers, of every document
///   of the collection written after `after` (the document, or null when deleted).
/// Pages are read one by one while the app goes on writing; the changes since the first page's version let the
/// exporter correct them into the collection as of one server version.
struct AdminExportRoute: Sendable {
    let application: OutpostServerApplication
    static let maxPage = 10_000
    /// A window of changes larger than this is refused (the export is retried), so one answer stays bounded.
    static let maxChangedDocuments = 100_000

    @Sendable func page(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let name = try AdminRoutes.collectionName(context)
        let query = request.uri.queryParameters
        let after = query.get("after").flatMap { $0.isEmpty ? nil : $0 }
        var limit = 1000
        if let text = query.get("limit") {
            guard let value = Int(text), value >= 1, value <= Self.maxPage else {
                throw APIError.badRequest("'limit' must be a number from 1 to \(Self.maxPage), not '\(text)'")
            }
            limit = value
        }
        let appId = application.app.appId
        let version = try await application.storage.latestServerVersion(appId: appId)
        let page = try await application.storage.documentTexts(appId: appId, collection: name, after: after, limit: limit)
        // The stored texts go out as they are, not parsed and written again.
        var body = "{\"server_version\":\(version),\"next\":"
        if page.count == limit, let last = page.last { JSONValue.writeString(last.key, to: &body) } else { body += "null" }
        body += ",\"documents\":[" + page.map(\.text).joined(separator: ",") + "]}"
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    @Sendable func changes(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let name = try AdminRoutes.collectionName(context)
        guard let text = request.uri.queryParameters.get("after"), let after = Int64(text), after >= 0 else {
            throw APIError.badRequest("'after' must be a server version (a number of 0 or more)")
        }
        let appId = application.app.appId
        let upTo = try await application.storage.latestServerVersion(appId: appId)
        var latest: [Value: Document?] = [:]
        var cursor = after
        while cursor < upTo {
            let changesets = try await application.storage.changesets(appId: appId, after: cursor, upTo: upTo, limit: 1000)
            guard let last = changesets.last else { break }
            for changeset in changesets {
                for change in changeset.draft.changes where change.collection == name {
                    latest[change.primaryKey] = .some(change.after)
                }
            }
            if latest.count > Self.maxChangedDocuments {
                throw APIError(status: .conflict, errorCode: "TooManyChanges", code: "tooManyChanges",
                    message: "more than \(Self.maxChangedDocuments) documents of \(name) changed during the export; "
                        + "export again when the app writes less")
            }
            cursor = last.serverVersion
        }
        let items: [JSONValue] = latest.map { id, document in
            .object(["_id": id.extendedJSON, "document": document.map { Value.document($0).extendedJSON } ?? .null])
        }
        return .json(.object(["server_version": .int(upTo), "changes": .array(items)]))
    }
}
