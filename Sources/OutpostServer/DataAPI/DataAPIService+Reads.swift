import OutpostCore

extension DataAPIService.Request {
    /// Documents read from storage per page: a read holds one page, plus what it keeps.
    static let pageSize = 1_000
    /// The first page's size: most reads (`findOne`, a lookup by `_id` or by a field of a few documents) end within
    /// it, and a page this small is read without leaving the request's thread. Larger reads go on in `pageSize`s.
    static let firstPageSize = 16

    /// The storage query for `filter`: its equality conditions on fields that are not null-like (the filter sees the
    /// redacted document, where an unreadable field is missing) and the roles' read scope (``DataAPIReadScope``).
    func storageQuery(_ filter: RuleExpression) -> DocumentQuery {
        DocumentQuery(requiredBy: filter, context: context, includingNull: false)
            .and(DataAPIReadScope.query(rules: service.rules, collection: collection, context: context))
    }

    /// Calls `body` with each readable document that matches `filter` (stored, visible as redacted, and its stored
    /// key), reading the candidates storage finds for ``storageQuery(_:)`` a page at a time, in stored-key order.
    func forEachMatch(
        _ filter: RuleExpression, _ body: (_ stored: Document, _ visible: Document, _ key: String) throws -> Void
    ) async throws {
        let query = storageQuery(filter)
        var after: String?
        var size = Self.firstPageSize
        while true {
            let page = try await storage.documents(
                appId: appId, collection: collection, matching: query, after: after, limit: size)
            try await prepareFunctions(page.map(\.document))
            for candidate in page {
                guard let visible = readable(candidate.document), filter.evaluate(visible, context: context) else { continue }
                try body(candidate.document, visible, candidate.key)
            }
            guard page.count == size, let last = page.last else { return }
            after = last.key
            size = Self.pageSize
        }
    }

    func find(one: Bool) async throws -> JSONValue {
        let filter = try DataAPIQuery.filter(body["filter"])
        let sort = try DataAPIQuery.sort(body["sort"])
        let projection = try DataAPIQuery.Projection(body["projection"])
        let limit = try one ? 1 : DataAPIQuery.count(body["limit"], name: "limit")
        let skip = try one ? 0 : DataAPIQuery.count(body["skip"], name: "skip") ?? 0
        // Only the first skip + limit are kept (all of them without a limit).
        let capacity = limit.flatMap { limit -> Int? in
            guard limit > 0 else { return nil }
            let (sum, overflow) = skip.addingReportingOverflow(limit)
            return overflow ? Int.max : sum
        }
        var top = DataAPITopDocuments(sort: sort, capacity: capacity)
        try await forEachMatch(filter) { _, visible, key in top.add(visible, key: key) }
        var found = Array(top.documents.dropFirst(skip))
        if let projection { found = found.map(projection.apply) }
        if one { return .object(["document": found.first.map { Value.document($0).extendedJSON } ?? .null]) }
        return .object(["documents": .array(found.map { Value.document($0).extendedJSON })])
    }

    func count() async throws -> JSONValue {
        let filter = try DataAPIQuery.filter(body["filter"])
        var n: Int64 = 0
        try await forEachMatch(filter) { _, _, _ in n += 1 }
        return .object(["count": .int(n)])
    }

    func aggregate() async throws -> JSONValue {
        var top = DataAPITopDocuments(sort: [], capacity: nil)
        try await forEachMatch(.alwaysTrue) { _, visible, key in top.add(visible, key: key) }
        let output = try DataAPIAggregate.run(body["pipeline"], on: top.documents, context: context)
        return .object(["documents": .array(output.map { Value.document($0).extendedJSON })])
    }

    /// The primary keys worth looking at in the transaction: the filter's pinned `_id`, or the matches of a
    /// read before it (re-checked inside).
    func candidateKeys(_ filter: RuleExpression) async throws -> [Value] {
        if let id = DataAPIQuery.pinnedId(body["filter"]) {
            if context.functionResults != nil,
                let document = try await storage.document(appId: appId, collection: collection, primaryKey: id)
            {
                try await prepareFunctions([document])
            }
            return [id]
        }
        var keys: [Value] = []
        try await forEachMatch(filter) { stored, _, _ in keys.append(stored["_id"]!) }
        return keys
    }
}
