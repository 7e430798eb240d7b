import OutpostCoreTesting
import Foundation
@testable import OutpostCore
import Testing

@Suite struct QueryPrinterTests {
    private func printed(_ value: Value) -> String { QueryPrinter.print(value) }

    @Test func printsEachValueTypeInLiteralSyntax() throws {
        #expect(printed(.null) == "NULL")
        #expect(printed(.bool(false)) == "false")
        #expect(printed(.int(-7)) == "-7")
        #expect(printed(.float(1.5)) == "1.5")
        #expect(printed(.double(3)) == "3.0")
        #expect(printed(.double(1e-5)) == "1e-05")
        #expect(printed(.double(-.infinity)) == "-inf")
        #expect(printed(.string("a\"b\\c\nd\u{1}")) == #""a\"b\\c\nd\u0001""#)
        #expect(printed(.data(Data([1, 2, 3]))) == "B64\"AQID\"")
        #expect(printed(.date(Date(timeIntervalSince1970: 1_577_836_800.25))) == "T1577836800:250000000")
        #expect(printed(.date(Date(timeIntervalSince1970: -1.5))) == "T-1:-500000000")
        #expect(printed(.objectId(try ObjectId(string: QueryFixtures.adaObjectId))) == "oid(507f1f77bcf86cd799439011)")
        #expect(printed(.decimal128(try Decimal128(string: "1.25"))) == "decimal128(1.25)")
        #expect(printed(.uuid(UUID(uuidString: QueryFixtures.adaUUID)!)) == "uuid(3b241101-e2bb-4255-8caf-4136c566a962)")
        #expect(printed(.array([.int(1), .string("x")])) == "{1, \"x\"}")
        #expect(printed(QueryFixtures.dog(3)) == "3")
        #expect(printed(.document(["b": .int(1), "a": .null])) == "{\"a\": NULL, \"b\": 1}")
    }

    @Test func everyPrintedValueParsesBackToItself() throws {
        let values: [Value] = [
            .null, .bool(true), .int(.min), .int(.max), .double(0.1), .double(-2.5e-300), .double(.infinity),
            .double(1e22), .string("tab\t\"quote\" \\ é 😀 \u{7F}"), .data(Data((0..<40).map { UInt8($0 * 6) })),
            .date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSince1970: -86_400 * 365 * 100)),
            .objectId(try ObjectId(string: QueryFixtures.adaObjectId)), .uuid(UUID(uuidString: QueryFixtures.adaUUID)!),
            .decimal128(try Decimal128(string: "-12.5")),
        ]
        for value in values {
            let predicate = QueryPredicate.comparison(.keyPath(QueryKeyPath(properties: ["x"])), .equal, .value(value))
            #expect(try QueryParser.parsePredicate(predicate.description) == predicate, "\(value)")
        }
    }

    @Test func floatsPrintTheirShortestFormAndParseAsDoubles() throws {
        let predicate = QueryPredicate.comparison(.keyPath(QueryKeyPath(properties: ["w"])), .equal, .value(.float(0.1)))
        #expect(predicate.description == "w == 0.1")
        #expect(try QueryParser.parsePredicate(predicate.description).description == "w == 0.1")
    }

    /// Date is a Double, so nanoseconds are only kept to its resolution (~0.1 µs around 2020); the
    /// printed form is the exact value held, and printing is stable.
    @Test func timestampsRoundTripAtDateResolution() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let seconds = Int64.random(in: -5_000_000_000...5_000_000_000, using: &generator)
            let nanoseconds = Int64.random(in: 0..<1_000_000_000, using: &generator) * (seconds < 0 ? -1 : 1)
            let text = "born == T\(seconds):\(nanoseconds)"
            let once = try QueryParser.parsePredicate(text)
            let printed = once.description
            #expect(try QueryParser.parsePredicate(printed) == once, "\(text) → \(printed)")
            #expect(try QueryParser.parsePredicate(printed).description == printed)
        }
        #expect(try QueryParser.parsePredicate("d == T1577836800:500").description == "d == T1577836800:477")
    }

    @Test func nestedChainsAreFlattenedAndParenthesised() {
        let a = QueryPredicate.comparison(.keyPath(QueryKeyPath(properties: ["a"])), .equal, .value(.int(1)))
        let b = QueryPredicate.comparison(.keyPath(QueryKeyPath(properties: ["b"])), .equal, .value(.int(2)))
        let c = QueryPredicate.comparison(.keyPath(QueryKeyPath(properties: ["c"])), .equal, .value(.int(3)))
        #expect(QueryPredicate(.and([QueryPredicate(.and([a, b])), c])).description == "a == 1 AND b == 2 AND c == 3")
        #expect(QueryPredicate(.and([a, QueryPredicate(.or([b, c]))])).description == "a == 1 AND (b == 2 OR c == 3)")
        #expect(QueryPredicate(.or([QueryPredicate(.and([a, b])), c])).description == "(a == 1 AND b == 2) OR c == 3")
        #expect(QueryPredicate(.and([QueryPredicate(.or([a]))])).description == "a == 1")
        #expect(QueryPredicate(.and([])).description == "TRUEPREDICATE")
        #expect(QueryPredicate(.or([])).description == "FALSEPREDICATE")
        #expect((!a).description == "NOT (a == 1)")
    }

    @Test func printsOptionsQuantifiersArgumentsAndSuffixes() throws {
        let predicate = QueryPredicate.comparison(
            .keyPath(QueryKeyPath([.property("dogs"), .property("name")])), .contains, .argument(2),
            options: [.caseInsensitive, .diacriticInsensitive], quantifier: Quantifier.none)
        #expect(predicate.description == "NONE dogs.name CONTAINS[cd] $2")
        let query = ParsedQuery(predicate: .truePredicate, suffixes: [
            .distinct([QueryKeyPath([.property("prices"), .mapKey("e\"ur")])]), .limit(0),
            .sort([.init(keyPath: QueryKeyPath(properties: ["a"]), ascending: false)]),
        ])
        #expect(query.description == "TRUEPREDICATE DISTINCT(prices[\"e\\\"ur\"]) LIMIT(0) SORT(a DESC)")
        #expect(try QueryParser.parse(query.description) == query)
    }
}
