import OutpostCoreTesting
import Foundation
import OutpostCore
import Testing

@Suite struct QueryBindingTests {
    @Test func replacesArgumentsWithValues() throws {
        let predicate = try QueryParser.parsePredicate("age > $1 AND name IN {$0, 'x'} OR NOT tags CONTAINS[c] $0")
        #expect(predicate.argumentCount == 2)
        let bound = try predicate.binding([.string("Ada"), .int(20)])
        #expect(bound.description == "(age > 20 AND name IN {\"Ada\", \"x\"}) OR NOT (tags CONTAINS[c] \"Ada\")")
        #expect(bound.argumentCount == 0)
    }

    @Test func bindsArgumentsInsideSubqueries() throws {
        let predicate = try QueryParser.parsePredicate("SUBQUERY(dogs, $d, $d.age > $0).@count == $1")
        #expect(predicate.argumentCount == 2)
        let bound = try predicate.binding([.int(4), .int(1)])
        #expect(bound.description == "SUBQUERY(dogs, $d, $d.age > 4).@count == 1")
        #expect(try QueryFixtures.matchingPeople(bound.description) == ["ada", "eli"])
    }

    @Test func bindsPositionalArgumentsInOrder() throws {
        let bound = try QueryParser.parsePredicate("a == %@ AND b == %@").binding([.int(1), .bool(true)])
        #expect(bound.description == "a == 1 AND b == true")
    }

    @Test func bindsAParsedQueryAndKeepsItsSuffixes() throws {
        let query = try QueryParser.parse("age BETWEEN $0 SORT(age ASC) LIMIT(1)")
        #expect(query.argumentCount == 1)
        let bound = try query.binding([.array([.int(1), .int(2)])])
        #expect(bound.description == "age BETWEEN {1, 2} SORT(age ASC) LIMIT(1)")
    }

    @Test func missingArgumentIsAnError() throws {
        let predicate = try QueryParser.parsePredicate("a == $0 OR b == $2")
        #expect(predicate.argumentCount == 3)
        #expect(throws: QueryError(.unknownArgument, "request for argument $2 but only 2 arguments were provided")) {
            try predicate.binding([.int(1), .int(2)])
        }
        let error = try #require(throws: QueryError.self) { try predicate.binding([]) }
        #expect(error.description == "Invalid predicate: request for argument $0 but only 0 arguments were provided")
    }

    @Test func extraArgumentsAreIgnoredAndBoundValuesEvaluate() throws {
        #expect(try QueryFixtures.matchingPeople("name == $0", arguments: [.string("Bob"), .int(9)]) == ["bob"])
        #expect(try QueryFixtures.matchingPeople("age IN $0", arguments: [.array([.int(17), .int(25)])]) == ["bob", "eli"])
        #expect(try QueryFixtures.matchingPeople("dog == %@", arguments: [QueryFixtures.dog(3)]) == ["eli"])
        #expect(try QueryFixtures.matchingPeople("dogs == $0", arguments: [QueryFixtures.dog(2)]) == ["ada"])
        #expect(try QueryFixtures.matchingPeople("$0 IN tags", arguments: [.string("Chef")]) == ["eli"])
    }
}
