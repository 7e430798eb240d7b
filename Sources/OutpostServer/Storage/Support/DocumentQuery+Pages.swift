import OutpostCore

extension DocumentQuery {
    /// The most rows one page of ``collectMatches(limit:after:page:)`` reads once the first page (of `limit` rows)
    /// came back without enough matches.
    static let largestPage = 1_000

    /// The paging loop every driver runs over its own SQL: reads candidate rows (key, stored text) in key order from
    /// `after` until `limit` documents match this query (checked in Swift, since the SQL finds a superset) or the
    /// rows run out. The first page asks for `limit` rows; each further page for twice as many as the one before, up
    /// to `max(limit, largestPage)`, so a query whose SQL finds many rows the Swift check drops does not creep on.
    func collectMatches(
        limit: Int, after: String?,
        page: (_ cursor: String, _ rows: Int) async throws -> [(key: String, body: String)]
    ) async throws -> [StoredDocument] {
        var found: [StoredDocument] = []
        var cursor = after ?? ""
        let largest = Swift.max(limit, Self.largestPage)
        var size = limit
        while found.count < limit {
            let rows = try await page(cursor, size)
            for (key, body) in rows where found.count < limit {
                let document = try StorageCoding.decodeDocument(body)
                if matches(document) { found.append(StoredDocument(key: key, document: document)) }
            }
            guard rows.count == size, let last = rows.last else { break }
            cursor = last.key
            size = size > largest / 2 ? largest : size * 2
        }
        return found
    }
}
