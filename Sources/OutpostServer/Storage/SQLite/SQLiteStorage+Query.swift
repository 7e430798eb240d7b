import GRDB
import OutpostCore

extension SQLiteStorage {
    public func documents(
        appId: String, collection: String, matching query: DocumentQuery, after: String?, limit: Int
    ) async throws -> [StoredDocument] {
        let limit = max(0, limit)
        guard limit > 0, !query.conditions.contains(where: { $0.values.isEmpty }) else { return [] }
        // SQLite's `->` gives compact JSON: no spaced forms. With a driver no other probe is needed.
        let driver = indexedFields.driver(of: query, spacedForms: false)
        let page = matchingSQL(driver == nil ? query.probes(spacedForms: false) : [], driver: driver)
        // The statement's text depends on the fields and the kinds of their values, not the values (bound): with a
        // driving probe of a few arms its shapes are few (indexed fields × arm kinds), worth preparing once per
        // connection. Other shapes name any field a request filters on, so they are not kept.
        let cached = driver.map { $0.armCount <= Self.cachedStatementArms } ?? false
        let texts = page.texts
        return try await query.collectMatches(limit: limit, after: after) { cursor, rows in
            var arguments: [DirectRows.Argument] = [.text(appId), .text(collection), .text(cursor), .integer(Int64(rows))]
            arguments.reserveCapacity(4 + texts.count)
            for text in texts { arguments.append(.text(text)) }
            let bound = arguments
            let fetch = { @Sendable (db: Database) throws -> [(key: String, body: String)] in
                let statement = cached ? try db.cachedStatement(sql: page.sql) : try db.makeStatement(sql: page.sql)
                return try DirectRows.textPairs(statement, bound, in: db)
            }
            // A small page found through an index (a `findOne`, a lookup by `_id`) in place: its read takes tens of
            // microseconds, the hop to a reader's queue and back several times that. Without a driving index the
            // page may scan the collection: that goes to a reader, never onto the shared in-place connection.
            return driver != nil && rows <= Self.inPlaceReadLimit
                ? try readNow("read matching documents", fetch) : try await read("read matching documents", fetch)
        }
    }

    /// The most arms (index ranges) of a driving probe whose statement is kept prepared.
    static let cachedStatementArms = 8

    func matchingSQL(_ probes: [DocumentQueryProbe], driver: DocumentQueryProbe?) -> DocumentQuerySQL {
        DocumentQuerySQL(
            probes, driver: driver, expression: Self.fieldExpression,
            indexHint: { $0 == "_id" ? "" : " INDEXED BY \"\(DocumentQueryProbe.indexName($0))\"" },
            rangeIndex: Self.rangeIndex, cache: queryTexts
        ) { "?\($0)" }
    }

    /// The partial indexes of a field's values that a lookup of one value must also read but rarely finds (arrays,
    /// links, number objects): each in key order, so its arm of a lookup is a walk of a usually empty index, not an
    /// index range sorted by key. Their conditions are the index's own text, which SQLite needs to see in the query.
    static func rangeIndexes(_ field: String) -> [(suffix: String, ranges: [DocumentQueryProbe.Range])] {
        [("_al", [DocumentQueryProbe.arrays, DocumentQueryProbe.links]), ("_n", [DocumentQueryProbe.numberObjects])]
    }

    static func rangeIndex(_ field: String, _ range: DocumentQueryProbe.Range) -> (hint: String, condition: String)? {
        guard field != "_id", let index = rangeIndexes(field).first(where: { $0.ranges.contains(range) }) else { return nil }
        let column = fieldExpression(field)
        let condition = index.ranges.map { "(\(column) >= \(literal($0.lower)) AND \(column) < \(literal($0.upper)))" }
            .joined(separator: " OR ")
        return (" INDEXED BY \"\(DocumentQueryProbe.indexName(field))\(index.suffix)\"", "(\(condition))")
    }

    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
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
                for index in Self.rangeIndexes(field) {
                    let range = Self.rangeIndex(field, index.ranges[0])!
                    try db.execute(sql: """
                        CREATE INDEX IF NOT EXISTS "\(DocumentQueryProbe.indexName(field))\(index.suffix)"
                        ON documents (app, collection, pk_key) WHERE \(range.condition)
                        """)
                }
            }
        }
        indexedFields.insert(fields)
    }

    /// The query plan SQLite chooses for a page of `query` (test support: it shows which index a lookup uses).
    package func matchingQueryPlan(appId: String, collection: String, _ query: DocumentQuery) async throws -> [String] {
        let probes = query.probes(spacedForms: false)
        let page = matchingSQL(probes, driver: indexedFields.driver(of: probes))
        let arguments = StatementArguments([appId, collection, "", 1000] as [any DatabaseValueConvertible])
            + StatementArguments(page.texts)
        return try await read("explain a query") { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + page.sql, arguments: arguments)
                .map { (row: Row) -> String in row["detail"] }
        }
    }
}
