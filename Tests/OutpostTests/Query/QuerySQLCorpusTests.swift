@testable import Outpost
import OutpostCore
import OutpostCoreTesting
import OutpostTesting
import Testing

/// Runs every row of the query corpus end to end through the client: text → AST → canonical text →
/// SQL → rows of a real Realm file, and checks the rows against the corpus and the core evaluator.
@Suite struct QuerySQLCorpusTests {
    /// The order of the rows whose suffixes (SORT, DISTINCT, LIMIT) decide order or count.
    static let orderedRows: [String: [String]] = [
        "age > 0 SORT(age ASC, name DESC)": ["bob", "eli", "ada"],
        "age > 0 sort(age ascending) limit(5) distinct(name)": ["bob", "eli", "ada"],
        "TRUEPREDICATE DISTINCT(address.city, active) LIMIT(2)": ["ada", "bob"],
        "active == true SORT(dog.name DESCENDING)": ["eli", "ada"],
    ]

    @Test(arguments: QueryCorpus.cases)
    func runsThroughSQL(_ row: QueryCorpusCase) throws {
        let parsed = try QueryParser.parse(row.text)
        #expect(QueryPrinter.print(parsed) == row.canonical)

        let fixture = try QueryCorpusRealm()
        defer { fixture.remove() }
        let checked = try fixture.people.filter(checked: row.text, [])
        let (sql, _) = try checked.query.sql(table: checked.table, realm: checked.instance)
        #expect(sql.hasPrefix("SELECT "))

        let results = fixture.people.filter(row.text)
        let keys = results.map(QueryCorpusRealm.key(of:))
        let filtered = Set(fixture.people.filter(row.text.removingSuffixes).map(QueryCorpusRealm.key(of:)))
        #expect(filtered == row.matches, "SQL: \(sql)")
        #expect(try QueryFixtures.matchingPeople(row.text.removingSuffixes) == filtered)
        if let ordered = Self.orderedRows[row.text] {
            #expect(keys == ordered, "SQL: \(sql)")
        } else {
            #expect(Set(keys) == row.matches)
            #expect(keys.count == row.matches.count)
        }
    }

    @Test func everySuffixedRowHasAnOrder() throws {
        for row in QueryCorpus.cases where !(try QueryParser.parse(row.text).suffixes.isEmpty) {
            #expect(Self.orderedRows[row.text] != nil, "\(row.text)")
        }
    }
}

extension String {
    /// The text before the first ` SORT(`, ` DISTINCT(` or ` LIMIT(` (case-insensitive).
    var removingSuffixes: String {
        let lower = lowercased()
        let cuts = [" sort(", " distinct(", " limit("].compactMap { lower.range(of: $0)?.lowerBound }
        guard let cut = cuts.min() else { return self }
        return String(self[..<index(startIndex, offsetBy: lower.distance(from: lower.startIndex, to: cut))])
    }
}
