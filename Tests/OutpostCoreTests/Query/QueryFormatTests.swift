import Foundation
import OutpostCore
import Testing

/// Realm's predicate format specifiers: `%d` and friends take a value as `%@` does; `%K` splices a key path.
@Suite struct QueryFormatTests {
    @Test func numberSpecifiersAreValueArguments() throws {
        for format in ["age = %d", "age = %i", "age = %ld", "age = %lld", "age = %hd", "age = %u", "price < %f", "price < %lf", "price < %g"] {
            let parsed = try QueryParser.parse(format)
            #expect(QueryPrinter.print(parsed) == QueryPrinter.print(try QueryParser.parse(
                format.replacingOccurrences(of: #"%[a-z]+"#, with: "%@", options: .regularExpression))), "\(format)")
        }
        // Not a specifier: an unknown letter, or one running into a name.
        #expect(throws: QueryError.self) { try QueryParser.parsePredicate("age = %y") }
        #expect(throws: QueryError.self) { try QueryParser.parsePredicate("age = %dx") }
    }

    @Test func keyPathsAreSplicedAndTheirArgumentsDropped() throws {
        let (text, rest) = try QueryFormat.substitutingKeyPaths("%K == %@ AND %K > %d", ["name", "ann", "owner.age", 3])
        #expect(text == "name == %@ AND owner.age > %d")
        #expect(rest.count == 2 && rest[0] as? String == "ann" && rest[1] as? Int == 3)
        // Inside quotes `%K` is text; Realm's `#any` and collection operators are key paths.
        let (quoted, kept) = try QueryFormat.substitutingKeyPaths("name == '%K' OR anyCol[%K] == %@", ["#any", 1])
        #expect(quoted == "name == '%K' OR anyCol[#any] == %@")
        #expect(kept.count == 1)
        let (count, _) = try QueryFormat.substitutingKeyPaths("%K > 1", ["dogs.@count"])
        #expect(count == "dogs.@count > 1")
    }

    @Test func badKeyPathArgumentsAreTypedErrors() {
        #expect(throws: QueryError.self) { try QueryFormat.substitutingKeyPaths("%K == 1", []) }
        #expect(throws: QueryError.self) { try QueryFormat.substitutingKeyPaths("%K == 1", [5]) }
        // Nothing that would end the key path and start other query text.
        #expect(throws: QueryError.self) { try QueryFormat.substitutingKeyPaths("%K == 1", ["a == 1 OR b"]) }
        #expect(throws: QueryError.self) { try QueryFormat.substitutingKeyPaths("%K == 1", ["a) OR (b"]) }
    }
}
