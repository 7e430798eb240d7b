import GRDB
import OutpostCore

extension SQLiteStorage {
    public func documents(
        appId: String, collection: String, matching query: DocumentQuery, after: String?, limit: Int
    ) async throws -> [StoredDocument] {
        let limit = max(0, limit)
        let probes = query.probes
        guard limit > 0, !probes.contains(where: \.matchesNothing) else { return [] }
        let page = matchingSQL(probes)
        return try await query.collectMatches(limit: limit, after: after) { cursor in
            let arguments = StatementArguments([appId, collection, cursor, limit] as [any DatabaseValueConvertible])
                + StatementArguments(page.texts)
            // Not cached: the statement's text depends on the request's fields and values.
            return try await read("read matching documents") { db in
                try Row.fetchAll(db.makeStatement(sql: page.sql), arguments: arguments)
                    .map { (row: Row) -> (key: String, body: String) in (row[0], row[1]) }
            }
        }
    }

    func matchingSQL(_ probes: [DocumentQueryProbe]) -> DocumentQuerySQL {
        DocumentQuerySQL(
            probes, driver: indexedFields.driver(of: probes), expression: Self.fieldExpression,
            indexHint: { $0 == "_id" ? "" : " INDEXED BY \"\(DocumentQueryProbe.indexName($0))\"" }
        ) { "?\($0)" }
    }

    /// The indexed expression of a field: its value's JSON text as stored (`->`), or the primary key's text.
    /// `field` must pass ``DocumentQueryProbe/isIndexable(_:)``: it is spliced into the SQL, as an index needs.
    static func fieldExpression(_ field: String) -> String {
        field == "_id" ? "pk_key" : "(body -> '$.\(field)')"
    }

    public func createFieldIndexes(_ fields: Set<String>) async throws {
        let fields = fields.filter { $0 != "_id" && DocumentQueryProbe.isIndexable($0) }.sorted()
        guard !fields.isEmpty else { return }
        try await write("create field indexes") { db in
            for field in fields {
                try db.execute(sql: """
                    CREATE INDEX IF NOT EXISTS "\(DocumentQueryProbe.indexName(field))"
                    ON documents (app, collection, \(Self.fieldExpression(field)), pk_key)
                    """)
            }
        }
        indexedFields.insert(fields)
    }

    /// The query plan SQLite chooses for a page of `query` (test support: it shows which index a lookup uses).
    package func matchingQueryPlan(appId: String, collection: String, _ query: DocumentQuery) async throws -> [String] {
        let page = matchingSQL(query.probes)
        let arguments = StatementArguments([appId, collection, "", 1000] as [any DatabaseValueConvertible])
            + StatementArguments(page.texts)
        return try await read("explain a query") { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + page.sql, arguments: arguments)
                .map { (row: Row) -> String in row["detail"] }
        }
    }
}
