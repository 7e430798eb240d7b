import Foundation
import Hummingbird
import OutpostCore

/// `POST /api/admin/v1/collections/<name>/import` with `{"documents": [<Extended JSON document>, …]}`: stores each
/// document under its `_id`, replacing one already there, in one transaction whose changeset reaches sync clients as
/// history. Documents equal to the stored ones are not written again, so importing the same batch twice writes
/// nothing the second time (`outpost-server import-data` resumes after a kill by sending a batch again). No rules
/// apply: the admin key stands for the app's owner. A batch is bounded by the server's request body limit.
struct AdminImportRoute: Sendable {
    let application: OutpostServerApplication

    @Sendable func importDocuments(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let collection = try AdminRoutes.collectionName(context)
        var request = request
        let body = try await request.jsonObject(context: context)
        guard case .array(let items)? = body.fields["documents"] else {
            throw APIError.badRequest("the body must be {\"documents\": [<document>, …]}")
        }
        var byId: [Value: (Document, String)] = [:]
        var order: [Value] = []
        for (index, item) in items.enumerated() {
            let path = "documents[\(index)]"
            guard case .object = item else { throw APIError.badRequest("'\(path)' must be an object") }
            try DataAPIValidation.checkFieldNames(item, path: path)
            let document: Document
            do { document = try Document(extendedJSON: item, path: path) } catch {
                throw APIError.badRequest(error.message)
            }
            guard let id = document["_id"], !id.isNull else {
                throw APIError.badRequest("'\(path)' has no _id: imported documents keep the _id they were exported with")
            }
            let text = document.extendedJSONText
            if text.utf8.count > SyncProtocolLimits.maxDocumentBytes {
                throw APIError.badRequest("'\(path)' (_id \(id.extendedJSON.text)) is \(text.utf8.count) bytes, more "
                    + "than the limit of \(SyncProtocolLimits.maxDocumentBytes) bytes a sync client can receive")
            }
            if byId[id] == nil { order.append(id) }
            byId[id] = (document, text)  // the last one of an _id wins, as a later line of an export would
        }
        let appId = application.app.appId
        let limit = SyncProtocolLimits.maxDocumentBytes
        let (written, version) = try await application.storage.transaction(appId: appId) {
            [byId, order] transaction -> (Int, Int64?) in
            let existing = try await transaction.documents(collection: collection, primaryKeys: order)
            var changes: [DocumentChange] = []
            for id in order {
                let (document, text) = byId[id]!
                let before = existing[id]
                if before == document { continue }
                var change = DocumentChange(
                    collection: collection, primaryKey: id, before: before, after: document,
                    changedFields: Self.changedFields(before, document))
                change.afterText = text
                changes.append(change)
            }
            return (changes.count, try await DataAPIService.Request.write(changes, in: transaction, limit: limit))
        }
        if let version, let engine = application.syncHandler as? SyncEngine {
            await engine.announce(appId: appId, serverVersion: version)
        }
        return .json(.object(["written": .int(Int64(written)), "unchanged": .int(Int64(order.count - written))]))
    }

    /// The top-level fields that differ (all of them for a new document).
    static func changedFields(_ before: Document?, _ after: Document) -> [String] {
        guard let before else { return after.sortedKeys }
        return Set(before.sortedKeys).union(after.sortedKeys).filter { before[$0] != after[$0] }.sorted()
    }
}
