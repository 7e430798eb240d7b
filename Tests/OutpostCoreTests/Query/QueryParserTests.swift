import Foundation
@testable import OutpostCore
import Testing

@Suite struct QueryParserTests {
    private func comparison(_ text: String) throws -> QueryPredicate.Comparison {
        let predicate = try QueryParser.parsePredicate(text)
        guard case .comparison(let comparison) = predicate.node else {
            Issue.record("not a comparison: \(predicate)")
            throw QueryError(.syntax, "not a comparison")
        }
        return comparison
    }

    @Test func parsesAComparisonIntoTheAST() throws {
        let c = try comparison("ANY dogs.name BEGINSWITH[cd] 'r'")
        #expect(c.lhs == .keyPath(QueryKeyPath(properties: ["dogs", "name"])))
        #expect(c.op == .beginsWith)
        #expect(c.rhs == .value(.string("r")))
        #expect(c.options == [.caseInsensitive, .diacriticInsensitive])
        #expect(c.quantifier == .any)
    }

    @Test func parsesKeyPathComponents() throws {
        #expect(try comparison("prices[\"eur\"] > 1").lhs == .keyPath(QueryKeyPath([.property("prices"), .mapKey("eur")])))
        #expect(try comparison("dogs.@avg.age > 1").lhs
            == .keyPath(QueryKeyPath([.property("dogs"), .aggregate(.avg), .property("age")])))
        #expect(try comparison("prices.@keys == 'a'").lhs == .keyPath(QueryKeyPath([.property("prices"), .keys])))
        #expect(try comparison("prices.@values == 1").lhs == .keyPath(QueryKeyPath([.property("prices"), .values])))
        #expect(try comparison("name.@size > 3").lhs == .keyPath(QueryKeyPath([.property("name"), .aggregate(.size)])))
        #expect(try comparison("dog.in == 1").lhs == .keyPath(QueryKeyPath(properties: ["dog", "in"])))
        // Subscripts into a mixed value's nested collections: index, key, every element, an argument.
        #expect(try comparison("any[0][*]['k'] == 1").lhs
            == .keyPath(QueryKeyPath([.property("any"), .index(0), .all, .mapKey("k")])))
        #expect(try comparison("any[$1] == $0").lhs == .keyPath(QueryKeyPath([.property("any"), .argumentSubscript(1)])))
        let positional = try comparison("any[%@] == %@")
        #expect(positional.lhs == .keyPath(QueryKeyPath([.property("any"), .argumentSubscript(0)])))
        #expect(positional.rhs == .argument(1))
        #expect(QueryKeyPath([.property("any"), .index(2), .all, .argumentSubscript(0)]).description == "any[2][*][$0]")
    }

    @Test func andOrChainsAreFlatAndNotBindsTighterThanAnd() throws {
        let predicate = try QueryParser.parsePredicate("a == 1 AND b == 2 AND (c == 3 AND d == 4) OR NOT e == 5")
        guard case .or(let parts) = predicate.node, parts.count == 2, case .and(let conjuncts) = parts[0].node,
              case .not = parts[1].node
        else {
            Issue.record("unexpected tree: \(predicate)")
            return
        }
        #expect(conjuncts.count == 4)
    }

    @Test func positionalArgumentsAreNumberedInOrder() throws {
        let predicate = try QueryParser.parsePredicate("a == %@ AND b IN {%@, %@}")
        #expect(predicate.argumentCount == 3)
        #expect(predicate.description == "a == $0 AND b IN {$1, $2}")
    }

    @Test func numberedArgumentsKeepTheirIndex() throws {
        #expect(try comparison("age > $3").rhs == .argument(3))
        #expect(try comparison("age BETWEEN $0").rhs == .argument(0))
    }

    @Test func literalsHaveTheirTypes() throws {
        #expect(try comparison("a == 0x1F").rhs == .value(.int(31)))
        #expect(try comparison("a == -0x10").rhs == .value(.int(-16)))
        #expect(try comparison("a == -9223372036854775808").rhs == .value(.int(.min)))
        #expect(try comparison("a == 1.5").rhs == .value(.double(1.5)))
        #expect(try comparison("a == .5").rhs == .value(.double(0.5)))
        #expect(try comparison("a == 1e3").rhs == .value(.double(1000)))
        #expect(try comparison("a == 2.5f").rhs == .value(.double(2.5)))
        #expect(try comparison("a == -2.5e-3").rhs == .value(.double(-0.0025)))
        #expect(try comparison("a == -inf").rhs == .value(.double(-.infinity)))
        #expect(try comparison("a == Infinity").rhs == .value(.double(.infinity)))
        guard case .value(.double(let nan)) = try comparison("a == nan").rhs else {
            Issue.record("nan is not a double")
            return
        }
        #expect(nan.isNaN)
        #expect(try comparison("a == true").rhs == .value(.bool(true)))
        #expect(try comparison("a == NULL").rhs == .value(.null))
        #expect(try comparison("a == T-1:-500000000").rhs == .value(.date(Date(timeIntervalSince1970: -1.5))))
        #expect(try comparison("a == 1970-01-02@00:00:01").rhs == .value(.date(Date(timeIntervalSince1970: 86_401))))
        #expect(try comparison("a == 1969-12-31T23:59:59").rhs == .value(.date(Date(timeIntervalSince1970: -1))))
        #expect(try comparison("a == B64\"AQID\"").rhs == .value(.data(Data([1, 2, 3]))))
        #expect(try comparison("a == decimal128(1.25)").rhs == .value(.decimal128(try Decimal128(string: "1.25"))))
        #expect(try comparison("a == {1, 'x', $0}").rhs == .list([.value(.int(1)), .value(.string("x")), .argument(0)]))
    }

    @Test func stringEscapes() throws {
        #expect(try comparison(#"a == "q\"s\'b\\s\/n\nt\tz\0u\u00e9""#).rhs == .value(.string("q\"s'b\\s/n\nt\tz\0u\u{e9}")))
        #expect(try comparison(#"a == '\ud83d\ude00'"#).rhs == .value(.string("😀")))
    }

    @Test func keywordsAreCaseInsensitive() throws {
        let lower = try QueryParser.parse("not a == 1 and b contains[c] 'x' or c between {1, 2} sort(a asc)")
        let upper = try QueryParser.parse("NOT a == 1 AND b CONTAINS[c] 'x' OR c BETWEEN {1, 2} SORT(a ASC)")
        #expect(lower == upper)
    }

    @Test func suffixesKeepTheirOrder() throws {
        let query = try QueryParser.parse("TRUEPREDICATE LIMIT(3) SORT(a DESC, b.c ASC) DISTINCT(a)")
        #expect(query.suffixes == [
            .limit(3),
            .sort([.init(keyPath: QueryKeyPath(properties: ["a"]), ascending: false),
                   .init(keyPath: QueryKeyPath(properties: ["b", "c"]), ascending: true)]),
            .distinct([QueryKeyPath(properties: ["a"])]),
        ])
    }

    @Test func whitespaceIsInsignificant() throws {
        #expect(try QueryParser.parse("  age>=5&&(name==\"x\"||!active==true)\n") == QueryParser.parse(
            "age >= 5 AND (name == \"x\" OR NOT (active == true))"))
    }

    /// A chain of 20,000 conditions is read as one flat AND (or OR) of all of them, in order: the chain is
    /// collected and joined once (joining it one operand at a time copied the growing chain for each).
    @Test func longChainsAreFlat() throws {
        let count = 20_000
        for (joiner, isAnd) in [(" AND ", true), (" || ", false)] {
            let text = (0..<count).map { "n == \($0)" }.joined(separator: joiner)
            let predicate = try QueryParser.parsePredicate(text)
            let parts: [QueryPredicate]
            switch (predicate.node, isAnd) {
            case (.and(let p), true), (.or(let p), false): parts = p
            default: Issue.record("not a flat chain: \(predicate.description.prefix(80))"); continue
            }
            #expect(parts.count == count)
            #expect(parts.first == (try QueryParser.parsePredicate("n == 0")))
            #expect(parts.last == (try QueryParser.parsePredicate("n == \(count - 1)")))
        }
        // Parenthesised chains inside a chain are flattened as before; other operators are not.
        #expect(try QueryParser.parsePredicate("a == 1 AND (b == 2 AND c == 3) AND (d == 4 OR e == 5)").description
            == "a == 1 AND b == 2 AND c == 3 AND (d == 4 OR e == 5)")
    }
}
