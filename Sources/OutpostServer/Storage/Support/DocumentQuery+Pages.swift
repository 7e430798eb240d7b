import OutpostCore

extension DocumentQuery {
    /// The paging loop every driver runs over its own SQL: reads candidate rows (key, stored text) in key order from
    /// `after`, a page of `limit` at a time, until `limit` documents match this query (checked in Swift, since the
    /// SQL finds a superset) or the rows run out.
    func collectMatches(
        limit: Int, after: String?, page: (_ cursor: String) async throws -> [(key: String, body: String)]
    ) async throws -> [StoredDocument] {
        var found: [StoredDocument] = []
        var cursor = after ?? ""
        while found.count < limit {
            let rows = try await page(cursor)
            for (key, body) in rows where found.count < limit {
                let document = try StorageCoding.decodeDocument(body)
                if matches(document) { found.append(StoredDocument(key: key, document: document)) }
            }
            guard rows.count == limit, let last = rows.last else { break }
            cursor = last.key
        }
        return found
    }
}
