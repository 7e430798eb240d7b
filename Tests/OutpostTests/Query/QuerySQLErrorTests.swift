import OutpostCoreTesting
import Foundation
import Outpost
import OutpostTesting
import Testing

/// `filter(checked:_:)` reports bad query text, unknown properties, type mismatches and bad
/// arguments as `QueryError` values.
@Suite struct QuerySQLErrorTests {
    private struct NotARealmType {}

    private func error(_ text: String, _ arguments: [Any] = []) throws -> QueryError {
        let fixture = try QueryCorpusRealm()
        defer { fixture.remove() }
        do {
            _ = try fixture.people.filter(checked: text, arguments)
        } catch let error as QueryError {
            return error
        }
        Issue.record("'\(text)' did not throw")
        return QueryError(.syntax, "no error")
    }

    @Test func malformedTextHasPositionAndToken() throws {
        let e = try error("age >> 5")
        #expect(e.kind == .syntax)
        #expect(e.query == "age >> 5")
        #expect(e.position == 4)
        #expect(e.token == ">>")
        let unterminated = try error("name == \"abc")
        #expect(unterminated.kind == .syntax)
        #expect(unterminated.position == 8)
        let truncated = try error("age > ")
        #expect(truncated.position == 6)
        #expect(truncated.token == "")
    }

    @Test func unknownPropertyNamesClassAndProperty() throws {
        let e = try error("agee > 5")
        #expect(e.kind == .invalidKeyPath)
        #expect(e.message == "'QPerson' has no property 'agee'")
        let through = try error("dog.color == 'brown'")
        #expect(through.message == "'QDog' has no property 'color'")
        let inList = try error("ANY dogs.colour == 'brown'")
        #expect(inList.message == "'QDog' has no property 'colour'")
        let sorted = try error("TRUEPREDICATE SORT(height2 ASC)")
        #expect(sorted.message == "Cannot sort on key path 'height2': property 'QPerson.height2' does not exist")  // Realm's
    }

    @Test func typeMismatches() throws {
        let e = try error("age == 'x'")
        #expect(e.kind == .typeMismatch)
        #expect(e.message == "Unsupported comparison between type 'int' and type 'string'")
        #expect(try error("name > 5").message == "Unsupported comparison between type 'string' and type 'int'")
        #expect(try error("active == 'yes'").message == "Unsupported comparison between type 'bool' and type 'string'")
        #expect(try error("age == name").message == "Unsupported comparison between type 'int' and type 'string'")
        #expect(try error("age BEGINSWITH 'x'").kind == .typeMismatch)
        #expect(try error("age == %@", ["36"]).message == "Unsupported comparison between type 'int' and type 'string'")
        #expect(try error("tags.@sum > 1").kind == .invalidKeyPath)
        #expect(try error("age.@count > 1").kind == .invalidKeyPath)
        #expect(try error("TRUEPREDICATE SORT(tags ASC)").kind == .invalidKeyPath)
    }

    @Test func missingArguments() throws {
        let e = try error("age > $1", [20])
        #expect(e.kind == .unknownArgument)
        #expect(e.message == "request for argument at index 1 but only 1 argument is provided")
        #expect(try error("age > %@ AND name == %@", [20]).kind == .unknownArgument)
        #expect(try error("age > %@").message == "request for argument at index 0 but only 0 arguments are provided")
    }

    @Test func argumentsOfUnsupportedTypes() throws {
        let e = try error("age > %@", [NotARealmType()])
        #expect(e.kind == .invalidArgument)
        #expect(e.message.contains("NotARealmType"))
        #expect(try error("name IN %@", [[NotARealmType()]]).kind == .invalidArgument)
        #expect(try error("age BETWEEN %@", [[1, 2, 3]]).kind == .invalidArgument)
    }
}
