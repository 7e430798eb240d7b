import Logging
import OutpostCore
import PostgresNIO

extension PostgresStorage {
    public func documents(
        appId: String, collection: String, matching query: DocumentQuery, after: String?, limit: Int
    ) async throws -> [StoredDocument] {
        let limit = max(0, limit)
        let probes = query.probes
        guard limit > 0, !probes.contains(where: { $0.matchesNothing }) else { return [] }
        return try await query.collectMatches(limit: limit, after: after) { cursor, size in
            let page = try matchingQuery(appId: appId, collection: collection, probes, after: cursor, limit: size)
            return try await rows("read matching documents", page) { row -> (key: String, body: String) in
                try row.decode((String, String).self)
            }
        }
    }

    /// One page of candidates (``DocumentQuerySQL``). Values are bound; only field names that pass
    /// ``DocumentQueryProbe/isIndexable(_:)`` are spliced in.
    func matchingQuery(
        appId: String, collection: String, _ probes: [DocumentQueryProbe], after: String, limit: Int
    ) throws -> PostgresQuery {
        let probes = probes.map { $0.field == "_id" ? $0 : $0.finding(text: Self.unreadable) }
        let page = DocumentQuerySQL(
            probes, driver: indexedFields.driver(of: probes), expression: Self.fieldExpression, cache: queryTexts
        ) {
            "$\($0)"
        }
        var binds = PostgresBindings()
        try binds.append(appId)
        try binds.append(collection)
        try binds.append(after)
        try binds.append(Int64(limit))
        for text in page.texts { try binds.append(text) }
        return PostgresQuery(unsafeSQL: page.sql, binds: binds)
    }

    /// The indexed expression of a field: the JSON text of its value as stored, in byte order (`json`, not `jsonb`,
    /// which refuses U+0000: its `->` returns the value's own text), or the primary key's text. `->` still fails on a
    /// top-level key holding `\u0000` (it decodes keys to compare them), so a body with that escape anywhere has
    /// ``unreadable`` instead, which every lookup of a field also finds.
    static func fieldExpression(_ field: String) -> String {
        guard field != "_id" else { return "pk_key" }
        return "((CASE WHEN strpos(body, '\(unreadable)') > 0 THEN '\(unreadable)' ELSE (body::json -> '\(field)')::text END)"
            + " COLLATE \"C\")"
    }

    /// The text indexed for a body whose fields `json` may refuse to read: `\u0000`, which no value's text is.
    static let unreadable = #"\u0000"#

    public func createFieldIndexes(_ fields: Set<String>) async throws {
        let fields = fields.filter { $0 != "_id" && DocumentQueryProbe.isIndexable($0) }.sorted()
        for field in fields {
            try await execute("create a field index", PostgresQuery(unsafeSQL: """
                CREATE INDEX IF NOT EXISTS "\(DocumentQueryProbe.indexName(field))"
                ON documents (app, collection, \(Self.fieldExpression(field)), pk_key)
                """))
        }
        indexedFields.insert(fields)
        if !fields.isEmpty { try await execute("refresh the planner statistics", "ANALYZE documents") }
    }

    /// The plan PostgreSQL chooses for a page of `query` with sequential scans discouraged (test support: it shows
    /// that an index can serve the lookup, whatever a small table's statistics prefer).
    package func matchingQueryPlan(appId: String, collection: String, _ query: DocumentQuery) async throws -> [String] {
        let page = try matchingQuery(appId: appId, collection: collection, query.probes, after: "", limit: 1000)
        return try await run("explain a query") {
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    try await connection.query("SET LOCAL enable_seqscan = off", logger: logger)
                    let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + page.sql, binds: page.binds)
                    let plan = try await connection.query(explain, logger: logger).collect().map { try $0.decode(String.self) }
                    try await connection.query("ROLLBACK", logger: logger)
                    return plan
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }
}
