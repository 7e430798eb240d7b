import OutpostCoreTesting
import Foundation
import OutpostCore
import Testing

@Suite struct QueryEvaluatorTests {
    private let evaluator = QueryFixtures.evaluator

    private func matches(_ text: String, _ document: Document, evaluator: QueryEvaluator? = nil) throws -> Bool {
        try (evaluator ?? self.evaluator).matches(try QueryParser.parsePredicate(text), document)
    }

    private func evaluationError(_ text: String, _ document: Document = [:]) throws -> QueryError {
        let predicate = try QueryParser.parsePredicate(text)
        return try #require(throws: QueryError.self) { try evaluator.matches(predicate, document) }
    }

    /// `field <op> constant` on a field holding one value takes a direct comparison; an explicit `ANY` (the same
    /// meaning) takes the general path. Both agree for every kind of stored value, operator and constant.
    @Test func directFieldComparisonAgreesWithTheGeneralPath() throws {
        let stored: [Value?] = [nil, .null, .int(5), .int(7), .double(5.0), .double(5.5), .string("b"), .string("B"),
                                .bool(true), .objectId(try ObjectId(string: "65a1b2c3d4e5f60718293a4b")),
                                .array([.int(1), .int(7)]), .document(["x": .int(1)])]
        let constants: [Value] = [.int(5), .double(5.0), .string("b"), .null, .bool(true), .int(-1)]
        let ops: [ComparisonOperator] = [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
        var checked = 0
        for value in stored {
            var document: Document = ["_id": .int(1)]
            if let value { document["f"] = value }
            for constant in constants {
                for op in ops {
                    for options: StringOptions in [[], [.caseInsensitive]] {
                        func predicate(_ quantifier: Quantifier?) -> QueryPredicate {
                            QueryPredicate(.comparison(.init(
                                lhs: .keyPath(QueryKeyPath(properties: ["f"])), op: op, rhs: .value(constant),
                                options: options, quantifier: quantifier)))
                        }
                        let direct = try evaluator.matches(predicate(nil), document)
                        let general = try evaluator.matches(predicate(.any), document)
                        #expect(direct == general, "f = \(String(describing: value)) \(op.rawValue) \(constant) \(options)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 12 * 6 * 6 * 2)
    }

    @Test func unboundArgumentIsAnError() throws {
        let error = try evaluationError("a == $1")
        #expect(error.kind == .unknownArgument)
        #expect(error.description == "Invalid predicate: argument $1 is not bound")
    }

    @Test func quantifiersOverAnEmptyCollection() throws {
        let empty: Document = ["xs": .array([])]
        #expect(try matches("xs > 1", empty) == false)
        #expect(try matches("ALL xs > 1", empty))
        #expect(try matches("NONE xs > 1", empty))
        #expect(try matches("xs.@count == 0 AND xs.@sum == 0 AND xs.@avg == nil AND xs.@max == nil", empty))
    }

    /// A mixed value's nested list and dictionary: `[0]`, `['k']` and `[*]` step into them; a place that is not
    /// there gives no value, so neither `==` nor `!=` matches it.
    @Test func subscriptsIntoNestedCollections() throws {
        let doc: Document = ["any": .array([.array([.int(1), .int(2)]), .document(["k": .int(3)])])]
        #expect(try matches("any[0][1] == 2", doc))
        #expect(try matches("any[1]['k'] == 3", doc))
        #expect(try matches("any[*][*] == 3", doc))
        #expect(try matches("any[*] == 3", doc) == false)
        #expect(try matches("any[5] == 1", doc) == false)
        #expect(try matches("any[5] != 1", doc) == false)
        #expect(try matches("any[0][0][0] != 1", doc) == false)
        let bound = try QueryParser.parsePredicate("any[$0][$1] == 3").binding([.int(1), .string("k")])
        #expect(try evaluator.matches(bound, doc))
        #expect(throws: QueryError.self) { try QueryParser.parsePredicate("any[$0] == 3").binding([.double(1.5)]) }
    }

    @Test func missingFieldsAndUnresolvableLinksReadAsNull() throws {
        let ada = try #require(QueryFixtures.people["ada"])
        let noLinks = QueryEvaluator()
        #expect(try matches("dog.name == nil", ada, evaluator: noLinks))
        #expect(try matches("dog.name == 'Rex'", ada))
        #expect(try matches("missing == nil AND missing.deeper == nil", ada))
        #expect(try matches("missing.@count == 0", ada))
        #expect(try matches("prices['gbp'] == nil", ada))
        #expect(try matches("nickname < 'z'", ada) == false)
        #expect(try matches("nickname BEGINSWITH nil", ada))
        #expect(try matches("name BEGINSWITH nil", ada) == false)
    }

    @Test func keyPathErrors() throws {
        #expect(try evaluationError("age.@count > 1", ["age": .int(3)]).kind == .invalidKeyPath)
        #expect(try evaluationError("age.name == 'x'", ["age": .int(3)]).description
            == "Invalid predicate: cannot read 'name' of a int")
        #expect(try evaluationError("age['k'] == 1", ["age": .int(3)]).kind == .invalidKeyPath)
        #expect(try evaluationError("xs.@sum > 1", ["xs": .array([.string("a")])]).kind == .typeMismatch)
    }

    @Test func operatorTypeErrors() throws {
        let error = try evaluationError("name BEGINSWITH 5")
        #expect(error.kind == .typeMismatch)
        #expect(error.description == "Invalid predicate: BEGINSWITH cannot compare a int")
        let between = try QueryParser.parsePredicate("age BETWEEN $0").binding([.array([.int(1)])])
        #expect(throws: QueryError(.invalidArgument, "BETWEEN expects two values, got 1")) {
            try evaluator.matches(between, ["age": .int(1)])
        }
    }

    @Test func numbersCompareAcrossTypes() throws {
        let doc: Document = [
            "i": .int(.max), "d": .double(9_223_372_036_854_775_808), "f": .float(0.1), "n": .double(.nan),
            "m": .decimal128(try Decimal128(string: "2.5")), "small": .int(3),
        ]
        #expect(try matches("i < d", doc))
        #expect(try matches("i == 9223372036854775807 AND i > 9.2e18", doc))
        #expect(try matches("f == 0.1 AND f < 0.2", doc))
        #expect(try matches("m > 2 AND m < 3 AND m == 2.5 AND m == decimal128(2.50)", doc))
        #expect(try matches("small > m AND small == 3.0 AND small != 3.5", doc))
        #expect(try matches("n == nan", doc))
        #expect(try matches("n > 0 OR n < 0 OR n == 0", doc) == false)
        #expect(try matches("small == '3'", doc) == false)
    }

    @Test func stringsCompareByScalarsAndFoldWithOptions() throws {
        let doc: Document = ["s": .string("Cafe\u{301}"), "t": .string("Straße"), "u": .string("b")]
        #expect(try matches("s == 'Café'", doc) == false)
        #expect(try matches("s ==[d] 'cafe'", doc) == false)
        #expect(try matches("s ==[cd] 'cafe'", doc))
        #expect(try matches("s BEGINSWITH 'Cafe'", doc))
        #expect(try matches("t CONTAINS[c] 'STRAßE'", doc))
        #expect(try matches("u > 'a' AND u < 'c' AND u BETWEEN {'a', 'b'}", doc))
    }

    @Test func likeWildcards() throws {
        let doc: Document = ["s": .string("añb*c")]
        #expect(try matches("s LIKE '*'", doc))
        #expect(try matches("s LIKE 'a?b*'", doc))
        #expect(try matches("s LIKE '*b?c'", doc))
        #expect(try matches("s LIKE 'a*c*'", doc))
        #expect(try matches("s LIKE 'a?c'", doc) == false)
        #expect(try matches("s LIKE[c] 'AÑB*C'", doc))
        #expect(try matches("s LIKE ''", ["s": .string("")]))
    }

    @Test func linksCompareByPrimaryKeyAndClass() throws {
        let doc: Document = ["owner": QueryFixtures.person(1), "pets": .array([QueryFixtures.dog(1), QueryFixtures.dog(2)])]
        #expect(try matches("owner == 1", doc))
        let samePerson = try QueryParser.parsePredicate("owner == $0").binding([QueryFixtures.person(1)])
        let dogOne = try QueryParser.parsePredicate("owner == $0").binding([QueryFixtures.dog(1)])
        #expect(try evaluator.matches(samePerson, doc))
        #expect(try evaluator.matches(dogOne, doc) == false)
        #expect(try matches("pets.name CONTAINS 'i' AND pets.@count == 2 AND pets.owner.name == 'Ada'", doc))
        #expect(try matches("owner.dogs.@max.age == 7 AND owner.dog.owner.age == 36", doc))
    }

    @Test func aggregatesOverDatesDecimalsAndMaps() throws {
        let doc: Document = [
            "dates": .array([.date(Date(timeIntervalSince1970: 10)), .null, .date(Date(timeIntervalSince1970: 5))]),
            "amounts": .array([.decimal128(try Decimal128(string: "1.5")), .int(2)]),
            "map": .document(["a": .int(1), "b": .int(4)]),
        ]
        #expect(try matches("dates.@min == T5:0 AND dates.@max == T10:0 AND dates.@count == 3", doc))
        #expect(try matches("amounts.@sum == 3.5 AND amounts.@avg == decimal128(1.75)", doc))
        #expect(try matches("map.@sum == 5 AND map.@avg == 2.5 AND map.@max == 4", doc))
    }

    @Test func suffixesDoNotFilterOneDocument() throws {
        let query = try QueryParser.parse("age > 1 LIMIT(0)")
        #expect(try evaluator.matches(query, ["age": .int(2)]))
    }
}
