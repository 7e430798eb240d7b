import Synchronization

/// The SQL of one page of a ``DocumentQuery``, the same for both drivers but for their placeholders and field
/// expressions. Parameters: 1 app, 2 collection, 3 the cursor (the page starts after it), 4 the limit, then
/// ``texts`` from 5 on.
///
/// With a driving probe (on `_id` or an indexed field, ``IndexedFields/driver(of:)``), the page's rows come from a
/// `UNION ALL` of one index range per arm of that probe, each in key order after the cursor, merged and cut at the
/// limit: a page costs about its own rows however many documents follow. (`indexHint` names the field's index for
/// SQLite, whose planner otherwise walks the primary key for a range arm with unknown bounds, to skip the sort;
/// `rangeIndex` names partial indexes that hold a range's documents in key order, which spares a range arm its sort.) The
/// other conditions are checked on the decoded documents. Without one, the page walks the primary key after the
/// cursor with every probe as a filter.
struct DocumentQuerySQL {
    var sql: String
    var texts: [String] = []

    /// Where a driver keeps a range of a field's values in an index of its own, in key order (SQLite's partial
    /// indexes): the index's hint and the condition that selects it, with no bound values.
    typealias RangeIndex = (_ field: String, _ range: DocumentQueryProbe.Range) -> (hint: String, condition: String)?

    init(
        _ probes: [DocumentQueryProbe], driver: DocumentQueryProbe?,
        expression: (String) -> String, indexHint: (String) -> String = { _ in "" }, rangeIndex: RangeIndex? = nil,
        cache: Cache? = nil, placeholder: (Int) -> String
    ) {
        // With a driver, the text depends only on its field and the kinds of its arms (values are bound): a lookup
        // of a shape seen before reuses its text. Arms come texts first, then ranges, then the missing field.
        let shape = driver.map(Shape.init)
        if let driver, let shape, let entry = cache?.entry(shape) {
            var texts = driver.texts
            for (range, bound) in zip(driver.ranges, entry.boundRanges) where bound { texts += [range.lower, range.upper] }
            self.init(sql: entry.sql, texts: texts)
            return
        }
        self.init(
            building: probes, driver: driver, expression: expression, indexHint: indexHint, rangeIndex: rangeIndex,
            placeholder: placeholder)
        if let driver, let shape {
            let bound = driver.ranges.map { rangeIndex?(driver.field, $0) == nil }
            cache?.keep(Cache.Entry(sql: sql, boundRanges: bound), for: shape)
        }
    }

    private init(sql: String, texts: [String]) {
        self.sql = sql
        self.texts = texts
    }

    private init(
        building probes: [DocumentQueryProbe], driver: DocumentQueryProbe?,
        expression: (String) -> String, indexHint: (String) -> String, rangeIndex: RangeIndex?,
        placeholder: (Int) -> String
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
            // Several primary keys (PostgreSQL's compact and spaced texts, an `$in`) merge their keys alone and read
            // the bodies by key: with the bodies in the arms PostgreSQL's planner could take another index that
            // merely ends with `pk_key` for them.
            let keysAlone = driver.field == "_id" && driver.armCount > 1
            let columns = keysAlone ? "pk_key" : "pk_key, body"
            func arm(_ hint: String, _ condition: String) -> String {
                "SELECT \(columns) FROM documents\(hint) WHERE app = \(app) AND collection = \(collection) AND pk_key > \(cursor) AND "
                    + condition
            }
            var arms: [String] = []
            var rangeHints: [String] = []
            for probeArm in driver.arms {
                if case .range(let range) = probeArm, let index = rangeIndex?(driver.field, range) {
                    // Ranges that share an index (its condition covers them all) are one arm.
                    if !rangeHints.contains(index.hint) {
                        rangeHints.append(index.hint)
                        arms.append(arm(index.hint, index.condition))
                    }
                } else {
                    arms.append(arm(hint, condition(probeArm, column)))
                }
            }
            // One arm is one index range already in key order; several are merged (each in key order, the merge cut
            // at the limit, so a page reads about its own rows and bodies).
            if arms.count == 1 {
                sql = "\(arms[0]) ORDER BY pk_key LIMIT \(limit)"
            } else if keysAlone {
                sql = """
                    SELECT pk_key, body FROM documents WHERE app = \(app) AND collection = \(collection) AND pk_key IN (
                    \(arms.joined(separator: "\nUNION ALL "))
                    ORDER BY 1 LIMIT \(limit)) ORDER BY pk_key
                    """
            } else {
                sql = arms.joined(separator: "\nUNION ALL ") + "\nORDER BY 1 LIMIT \(limit)"
            }
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

    /// What a driven page's text depends on: the driver's field and its arms' kinds. (A probe's ranges are the
    /// arrays and links ranges, for a number also the number objects', none for `_id`: their count says which.)
    struct Shape: Hashable, Sendable {
        var field: String
        var texts: Int
        var ranges: Int
        var missing: Bool

        init(_ driver: DocumentQueryProbe) {
            field = driver.field
            texts = driver.texts.count
            ranges = driver.ranges.count
            missing = driver.matchesMissing
        }
    }

    /// The texts of the shapes a storage has looked up (at most `capacity`; later shapes are built each time).
    final class Cache: Sendable {
        static let capacity = 256
        private let entries = Mutex<[Shape: Entry]>([:])

        /// A page's text, and for each of the driver's ranges whether its bounds are bound (else an index of the
        /// range serves it).
        struct Entry: Sendable {
            var sql: String
            var boundRanges: [Bool]
        }

        func entry(_ shape: Shape) -> Entry? { entries.withLock { $0[shape] } }

        func keep(_ entry: Entry, for shape: Shape) {
            entries.withLock { entries in
                if entries.count < Self.capacity { entries[shape] = entry }
            }
        }
    }
}
