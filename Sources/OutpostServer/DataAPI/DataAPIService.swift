import Foundation
import OutpostCore

/// Runs Data API actions on one collection for one user, with roles chosen per document and request.
///
/// Reads return only documents whose chosen role can read them, without unreadable fields; filters see only
/// what the user can read. Writes are checked completely before anything is written, inside one storage
/// transaction, and append one changeset (origin file 0) that the sync engine is told about.
struct DataAPIService: Sendable {
    let storage: any ServerStorage
    let appId: String
    let rules: RuleSet
    let engine: SyncEngine?
    /// The largest document a write may leave (its Extended JSON text, in bytes); tests set a small one.
    var maxDocumentBytes = SyncProtocolLimits.maxDocumentBytes
    /// What one write request may write.
    var limits = AppDefinition.DataAPI()
    /// Runs a rule's `%function` call (nil: the app has no function runtime, and such calls fail closed).
    var ruleFunctions: (@Sendable (RuleFunctionCall) async -> Value?)?
    /// The app's values, for `%%values` in rules.
    var values: Document = [:]
    /// The most distinct `%function` calls one request may make.
    static let maxRuleFunctionCalls = 1_000

    static let actions = [
        "find", "findOne", "insertOne", "insertMany", "updateOne", "updateMany", "deleteOne", "deleteMany", "count",
        "aggregate",
    ]
    /// Fields Atlas Data API clients send that Outpost ignores (one app, one database).
    static let ignoredFields: Set<String> = ["dataSource", "database", "collection"]

    static func allowedFields(_ action: String) -> Set<String> {
        switch action {
        case "find": ["filter", "sort", "limit", "skip", "projection"]
        case "findOne": ["filter", "sort", "projection"]
        case "insertOne": ["document"]
        case "insertMany": ["documents"]
        case "updateOne", "updateMany": ["filter", "update", "upsert"]
        case "deleteOne", "deleteMany", "count": ["filter"]
        case "aggregate": ["pipeline"]
        default: []
        }
    }

    func perform(action: String, collection: String, body: [String: JSONValue], user: AuthenticatedUser) async throws
        -> JSONValue
    {
        guard Self.actions.contains(action) else {
            throw APIError(
                status: .notFound, errorCode: "UnknownAction", code: "unknownAction",
                message: "unknown Data API action \(DataAPIValidation.quoted(action)); expected one of "
                    + Self.actions.joined(separator: ", "))
        }
        let allowed = Self.allowedFields(action)
        if let unknown = body.keys.sorted().first(where: { !allowed.contains($0) && !Self.ignoredFields.contains($0) }) {
            throw APIError.badRequest(
                "unknown field \(DataAPIValidation.quoted(unknown)) for '\(action)'; expected "
                    + allowed.sorted().joined(separator: ", "))
        }
        var context = RuleContext(userId: user.userId, userData: user.data, customData: user.customData, values: values)
        if rules.callsFunctions { context.functionResults = RuleFunctionResults() }
        let request = Request(service: self, collection: collection, body: body, context: context)
        switch action {
        case "find": return try await request.find(one: false)
        case "findOne": return try await request.find(one: true)
        case "count": return try await request.count()
        case "aggregate": return try await request.aggregate()
        case "insertOne": return try await request.insert(many: false)
        case "insertMany": return try await request.insert(many: true)
        case "updateOne": return try await request.update(many: false)
        case "updateMany": return try await request.update(many: true)
        case "deleteOne": return try await request.delete(many: false)
        default: return try await request.delete(many: true)
        }
    }

    struct Request: Sendable {
        let service: DataAPIService
        let collection: String
        let body: [String: JSONValue]
        let context: RuleContext

        var storage: any ServerStorage { service.storage }
        var appId: String { service.appId }

        // MARK: Roles

        func role(for document: Document) -> Role? {
            service.rules.role(forCollection: collection, document: document, context: context)
        }

        /// The document as the request may see it, or nil when its role cannot read it.
        func readable(_ document: Document) -> Document? {
            guard let role = role(for: document), role.canRead(document, context: context) else { return nil }
            var out = Document()
            for (key, value) in document.fields where role.canRead(field: key, document: document, context: context) {
                out[key] = value
            }
            return out
        }

        /// Readable documents (redacted) that match the filter, in primary-key order, with their stored form.
        func matching(_ documents: [Document], _ filter: RuleExpression) -> [(stored: Document, visible: Document)] {
            DataAPIValues.sortedByPrimaryKey(documents).compactMap { stored in
                guard let visible = readable(stored), filter.evaluate(visible, context: context) else { return nil }
                return (stored, visible)
            }
        }

        func denied(_ what: String, _ document: Document, role: Role?) -> APIError {
            let id = document["_id"].map { $0.extendedJSON.text } ?? "?"
            let by = role.map { "role \"\($0.name)\"" } ?? "no role (none applies to it)"
            return APIError(
                status: .forbidden, errorCode: "WritePermissionDenied", code: "writeDenied",
                message: "\(what) of document with _id \(id) in collection \(DataAPIValidation.quoted(collection)) "
                    + "was denied by \(by)")
        }

        // MARK: Writes (reads are in DataAPIService+Reads.swift)

        /// Applies checked changes in the transaction: one changeset for all of them. Returns its server version.
        ///
        /// - Throws: ``APIError`` 400 `documentTooLarge` when a document would be larger than a sync download can
        ///   carry (`limit`: ``SyncProtocolLimits/maxDocumentBytes``, as for sync uploads); the transaction then writes
        ///   nothing.
        static func write(_ changes: [DocumentChange], in transaction: any StorageTransaction, limit: Int) async throws
            -> Int64?
        {
            guard !changes.isEmpty else { return nil }
            for change in changes {
                if let after = change.after {
                    let text = change.afterText ?? after.extendedJSONText
                    if text.utf8.count > limit { throw tooLarge(change, bytes: text.utf8.count, limit: limit) }
                    try await transaction.putDocument(collection: change.collection, after, text: text)
                } else {
                    try await transaction.deleteDocument(collection: change.collection, primaryKey: change.primaryKey)
                }
            }
            return try await transaction.appendChangeset(
                ServerChangesetDraft(originFileIdent: 0, originClientVersion: 0, timestamp: Date(), changes: changes))
        }

        /// A write whose document would be over ``SyncProtocolLimits/maxDocumentBytes``. (MongoDB refuses documents
        /// over 16 MB; Outpost's limit leaves room for a download message's envelope, so that every stored document
        /// reaches sync clients.)
        static func tooLarge(_ change: DocumentChange, bytes: Int, limit: Int) -> APIError {
            APIError(
                status: .badRequest, errorCode: "DocumentTooLarge", code: "documentTooLarge",
                message: "document with _id \(change.primaryKey.extendedJSON.text) in collection "
                    + "\(DataAPIValidation.quoted(change.collection)) would be \(bytes) bytes, more than the limit of "
                    + "\(limit) bytes")
        }

        func announce(_ version: Int64?) async {
            guard let version else { return }
            await service.engine?.announce(appId: appId, serverVersion: version)
        }

        func parseDocument(_ json: JSONValue, at path: String) throws(APIError) -> Document {
            guard case .object = json else {
                throw APIError.badRequest("'\(path)' must be an object, not \(DataAPIValidation.describe(json))")
            }
            try DataAPIValidation.checkFieldNames(json, path: "")
            var document: Document
            do { document = try Document(extendedJSON: json, path: path) } catch {
                throw APIError.badRequest(error.message)
            }
            if document["_id"] == nil || document["_id"] == .null { document["_id"] = .objectId(.generate()) }
            try DataAPIValidation.checkPrimaryKey(document["_id"]!, path: path)
            return document
        }

        func checkInsert(_ document: Document) throws(APIError) {
            let role = role(for: document)
            guard let role, role.canInsert(document, context: context) else { throw denied("insert", document, role: role) }
            for field in document.sortedKeys where !role.canWrite(field: field, document: document, context: context) {
                throw denied("insert (field \(DataAPIValidation.quoted(field)))", document, role: role)
            }
        }

        static func duplicate(_ id: Value, _ collection: String) -> APIError {
            APIError(
                status: .conflict, errorCode: "DuplicateKey", code: "duplicateKey",
                message: "duplicate key: a document with _id \(id.extendedJSON.text) already exists in collection "
                    + DataAPIValidation.quoted(collection))
        }

        func insert(many: Bool) async throws -> JSONValue {
            var documents: [Document] = []
            if many {
                guard let json = body["documents"] else { throw APIError.badRequest("missing field 'documents'") }
                guard case .array(let items) = json, !items.isEmpty else {
                    throw APIError.badRequest("'documents' must be a non-empty array of documents")
                }
                for (i, item) in items.enumerated() { documents.append(try parseDocument(item, at: "documents[\(i)]")) }
            } else {
                guard let json = body["document"] else { throw APIError.badRequest("missing field 'document'") }
                documents.append(try parseDocument(json, at: "document"))
            }
            var budget = DataAPIWriteBudget(service.limits)
            try budget.admit(documents: documents.count, "insert", collection: collection)
            var seen: Set<Value> = []
            var changes: [DocumentChange] = []
            changes.reserveCapacity(documents.count)
            try await prepareFunctions(documents)
            for document in documents {
                let id = document["_id"]!
                guard seen.insert(id).inserted else { throw Self.duplicate(id, collection) }
                try checkInsert(document)
                var change = DocumentChange(
                    collection: collection, primaryKey: id, before: nil, after: document, changedFields: document.sortedKeys)
                let text = document.extendedJSONText
                try budget.spend(text, collection: collection)
                change.afterText = text
                changes.append(change)
            }
            let collection = collection
            let limit = service.maxDocumentBytes
            let version = try await storage.transaction(appId: appId) { [changes] transaction -> Int64? in
                let existing = try await transaction.documents(collection: collection, primaryKeys: changes.map(\.primaryKey))
                if let id = changes.map(\.primaryKey).first(where: { existing[$0] != nil }) {
                    throw Self.duplicate(id, collection)
                }
                return try await Self.write(changes, in: transaction, limit: limit)
            }
            await announce(version)
            let ids = documents.map { $0["_id"]!.extendedJSON }
            return many ? .object(["insertedIds": .array(ids)]) : .object(["insertedId": ids[0]])
        }

        func update(many: Bool) async throws -> JSONValue {
            let filter = try DataAPIQuery.filter(body["filter"])
            let update = try DataAPIUpdate(json: body["update"])
            var upsert = false
            if let json = body["upsert"] {
                guard case .bool(let flag) = json else { throw APIError.badRequest("'upsert' must be a boolean") }
                upsert = flag
            }
            let upsertBase = upsert ? try DataAPIQuery.upsertBase(body["filter"]) : Document()
            let isUpsert = upsert
            var keys = try await candidateKeys(filter)
            try await prepareFunctions(updating: keys, with: update, upsertBase: isUpsert ? upsertBase : nil)
            let collection = collection
            let limit = service.maxDocumentBytes
            var budget = DataAPIWriteBudget(service.limits)
            if many { try budget.admit(documents: keys.count, "update", collection: collection) } else { keys = Array(keys.prefix(1)) }
            let (result, version) = try await storage.transaction(appId: appId) {
                [budget, keys] transaction -> (JSONValue, Int64?) in
                var budget = budget
                let stored = try await transaction.documents(collection: collection, primaryKeys: keys)
                var matched = matching(Array(stored.values), filter)
                if !many { matched = Array(matched.prefix(1)) }
                var changes: [DocumentChange] = []
                for (before, _) in matched {
                    let after = try update.apply(to: before)
                    guard after != before else { continue }
                    try checkUpdate(before: before, after: after)
                    var change = DocumentChange(
                        collection: collection, primaryKey: before["_id"]!, before: before, after: after,
                        changedFields: DataAPIUpdate.changedFields(before, after))
                    let text = after.extendedJSONText
                    try budget.spend(text, collection: collection)
                    change.afterText = text
                    changes.append(change)
                }
                var upsertedId: Value?
                if matched.isEmpty && isUpsert {
                    var document = try update.apply(to: upsertBase)
                    if document["_id"] == nil { document["_id"] = .objectId(.generate()) }
                    let id = document["_id"]!
                    try DataAPIValidation.checkPrimaryKey(id, path: "upsert")
                    try checkInsert(document)
                    if try await transaction.documents(collection: collection, primaryKeys: [id])[id] != nil {
                        throw Self.duplicate(id, collection)
                    }
                    changes.append(DocumentChange(
                        collection: collection, primaryKey: id, before: nil, after: document, changedFields: document.sortedKeys))
                    upsertedId = id
                }
                let version = try await Self.write(changes, in: transaction, limit: limit)
                var out: [String: JSONValue] = [
                    "matchedCount": .int(Int64(matched.count)),
                    "modifiedCount": .int(Int64(changes.count - (upsertedId == nil ? 0 : 1))),
                ]
                if let upsertedId { out["upsertedId"] = upsertedId.extendedJSON }
                return (.object(out), version)
            }
            await announce(version)
            return result
        }

        func checkUpdate(before: Document, after: Document) throws(APIError) {
            let role = role(for: before)
            guard let role, role.canWrite(before, context: context) else { throw denied("update", before, role: role) }
            for field in DataAPIUpdate.changedFields(before, after)
            where !role.canWrite(field: field, document: before, context: context) {
                throw denied("update of field \(DataAPIValidation.quoted(field))", before, role: role)
            }
            let afterRole = self.role(for: after)
            guard let afterRole, afterRole.canWrite(after, context: context) else {
                throw denied("update (the document would no longer pass the write filter)", before, role: afterRole)
            }
        }

        func delete(many: Bool) async throws -> JSONValue {
            let filter = try DataAPIQuery.filter(body["filter"])
            var keys = try await candidateKeys(filter)
            let collection = collection
            let limit = service.maxDocumentBytes
            if many {
                try DataAPIWriteBudget(service.limits).admit(documents: keys.count, "delete", collection: collection)
            } else {
                keys = Array(keys.prefix(1))
            }
            let (count, version) = try await storage.transaction(appId: appId) { [keys] transaction -> (Int, Int64?) in
                let stored = try await transaction.documents(collection: collection, primaryKeys: keys)
                var matched = matching(Array(stored.values), filter)
                if !many { matched = Array(matched.prefix(1)) }
                for (before, _) in matched {
                    let role = role(for: before)
                    guard let role, role.canDelete(before, context: context) else { throw denied("delete", before, role: role) }
                }
                let changes = matched.map {
                    DocumentChange(collection: collection, primaryKey: $0.stored["_id"]!, before: $0.stored, after: nil, changedFields: [])
                }
                return (matched.count, try await Self.write(changes, in: transaction, limit: limit))
            }
            await announce(version)
            return .object(["deletedCount": .int(Int64(count))])
        }
    }
}
