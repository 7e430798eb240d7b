import Synchronization

/// The SQL of one page of a ``DocumentQuery``, the same for both drivers but for their placeholders and field
/// expressions. Parameters: 1 app, 2 collection, 3 the cursor (the page starts after it), 4 the limit, then
/// ``texts`` from 5 on.
///
/// With a driving probe (on `_id` or an indexed field, ``IndexedFields/driver(of:)``), the page's keys come from a
/// `UNION ALL` of one index range per arm of that probe, each in key order after the cursor, merged and cut at the
/// limit: a page costs about its own rows however many documents follow. (`indexHint` names the field's index for
/// SQLite, whose planner otherwise walks the primary key for a range arm with unknown bounds, to skip the sort.) Only those keys' bodies are read; the
/// other conditions are checked on the decoded documents. Without one, the page walks the primary key after the
/// cursor with every probe as a filter.
struct DocumentQuerySQL {
    var sql: String
    var texts: [String] = []

    init(
        _ probes: [DocumentQueryProbe], driver: DocumentQueryProbe?,
        expression: (String) -> String, indexHint: (String) -> String = { _ in "" }, cache: Cache? = nil,
        placeholder: (Int) -> String
    ) {
        // With a driver, the text depends only on its field and the kinds of its arms (values are bound): a lookup
        // of a shape seen before reuses its text.
        let arms = driver?.arms ?? []
        let shape = driver.map { driver in
            driver.field + "|" + String(arms.map { arm -> Character in
                switch arm {
                case .equal: "e"
                case .range: "r"
                case .missing: "m"
                }
            })
        }
        if let shape, let sql = cache?.sql(shape) {
            self.init(sql: sql, texts: arms.flatMap { arm -> [String] in
                switch arm {
                case .equal(let text): [text]
                case .range(let range): [range.lower, range.upper]
                case .missing: []
                }
            })
            return
        }
        self.init(building: probes, driver: driver, expression: expression, indexHint: indexHint, placeholder: placeholder)
        if let shape { cache?.keep(sql, for: shape) }
    }

    private init(sql: String, texts: [String]) {
        self.sql = sql
        self.texts = texts
    }

    private init(
        building probes: [DocumentQueryProbe], driver: DocumentQueryProbe?,
        expression: (String) -> String, indexHint: (String) -> String, placeholder: (Int) -> String
    ) {
        var texts: [String] = []
        func bind(_ text: String) -> String {
            texts.append(text)
            return placeholder(texts.count + 4)
        }
        func condition(_ arm: DocumentQueryProbe.Arm, _ column: String) -> String {
            switch arm {
            case .equal(let text): "\(column) = \(bind(text))"
            case .range(let range): "\(column) >= \(bind(range.lower)) AND \(column) < \(bind(range.upper))"
            case .missing: "\(column) IS NULL"
            }
        }
        let (app, collection, cursor, limit) = (placeholder(1), placeholder(2), placeholder(3), placeholder(4))
        if let driver {
            let column = expression(driver.field)
            let hint = indexHint(driver.field)
            let arms = driver.arms.map { arm in
                "SELECT pk_key FROM documents\(hint) WHERE app = \(app) AND collection = \(collection) AND pk_key > \(cursor) AND "
                    + condition(arm, column)
            }
            sql = """
                SELECT pk_key, body FROM documents WHERE app = \(app) AND collection = \(collection) AND pk_key IN (
                \(arms.joined(separator: "\nUNION ALL "))
                ORDER BY 1 LIMIT \(limit)) ORDER BY pk_key
                """
        } else {
            var filters = ""
            for probe in probes {
                let column = expression(probe.field)
                filters += " AND (" + probe.arms.map { "(\(condition($0, column)))" }.joined(separator: " OR ") + ")"
            }
            sql = """
                SELECT pk_key, body FROM documents WHERE app = \(app) AND collection = \(collection) AND pk_key > \(cursor)\(filters)
                ORDER BY pk_key LIMIT \(limit)
                """
        }
        self.texts = texts
    }

    /// The texts of the shapes a storage has looked up (at most `capacity`; later shapes are built each time).
    final class Cache: Sendable {
        static let capacity = 256
        private let texts = Mutex<[String: String]>([:])

        func sql(_ shape: String) -> String? { texts.withLock { $0[shape] } }

        func keep(_ sql: String, for shape: String) {
            texts.withLock { texts in
                if texts.count < Self.capacity { texts[shape] = sql }
            }
        }
    }
}
