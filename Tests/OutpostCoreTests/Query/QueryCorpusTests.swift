import OutpostCoreTesting
import OutpostCore
import Testing

/// Runs every corpus row end to end: text → AST → canonical text → matching fixture documents.
@Suite struct QueryCorpusTests {
    @Test(arguments: QueryCorpus.cases)
    func printsCanonicalText(_ row: QueryCorpusCase) throws {
        #expect(QueryPrinter.print(try QueryParser.parse(row.text)) == row.canonical)
    }

    @Test(arguments: QueryCorpus.cases)
    func matchesFixtureDocuments(_ row: QueryCorpusCase) throws {
        #expect(try QueryFixtures.matchingPeople(try QueryParser.parse(row.text).predicate.description) == row.matches)
        #expect(try QueryFixtures.matchingPeople(row.text.removingSuffixes) == row.matches)
    }

    @Test(arguments: QueryCorpus.cases)
    func parsingThePrintedTextGivesTheSameTree(_ row: QueryCorpusCase) throws {
        let parsed = try QueryParser.parse(row.text)
        let printed = QueryPrinter.print(parsed)
        #expect(try QueryParser.parse(printed) == parsed)
        #expect(QueryPrinter.print(try QueryParser.parse(printed)) == printed)
    }

    @Test func corpusCoversEveryOperator() throws {
        var seen: Set<ComparisonOperator> = []
        for row in QueryCorpus.cases {
            collectOperators(try QueryParser.parse(row.text).predicate.description, into: &seen)
        }
        #expect(seen == Set(ComparisonOperator.allCases))
    }

    private func collectOperators(_ canonical: String, into seen: inout Set<ComparisonOperator>) {
        for op in ComparisonOperator.allCases where canonical.contains(" \(op.rawValue)") { seen.insert(op) }
    }
}

extension String {
    /// The text before the first ` SORT(`, ` DISTINCT(` or ` LIMIT(` (case-insensitive).
    var removingSuffixes: String {
        var end = endIndex
        for keyword in [" sort(", " distinct(", " limit("] {
            if let range = lowercased().range(of: keyword), range.lowerBound < end {
                end = index(startIndex, offsetBy: lowercased().distance(from: lowercased().startIndex, to: range.lowerBound))
            }
        }
        return String(self[..<end])
    }
}
