import OutpostCore
import Testing

@Suite struct QueryErrorTests {
    private func parseError(_ text: String) -> QueryError? {
        do {
            _ = try QueryParser.parse(text)
            return nil
        } catch {
            return error
        }
    }

    /// Each malformed input with its kind, position, token and full message.
    @Test(arguments: [
        ("age >> 5", QueryError.Kind.syntax, 4, ">>", "Invalid predicate: 'age >> 5': unknown operator at position 4 near '>>'"),
        ("name == \"abc", .syntax, 8, "\"abc", "Invalid predicate: 'name == \"abc': unterminated string at position 8 near '\"abc'"),
        ("age > ", .syntax, 6, "", "Invalid predicate: 'age > ': expected a value or key path at end of input (position 6)"),
        ("age > AND b == 1", .syntax, 6, "AND", "Invalid predicate: 'age > AND b == 1': expected a value or key path at position 6 near 'AND'"),
        ("age 5", .syntax, 4, "5", "Invalid predicate: 'age 5': expected a comparison operator at position 4 near '5'"),
        ("id == oid(1234)", .invalidLiteral, 6, "oid(1234)", "Invalid predicate: 'id == oid(1234)': invalid ObjectId at position 6 near 'oid(1234)'"),
        ("a == %@ AND b == $0", .syntax, 17, "$0", "Invalid predicate: 'a == %@ AND b == $0': cannot mix '%@' and '$n' arguments at position 17 near '$0'"),
        ("(a == 1", .syntax, 7, "", "Invalid predicate: '(a == 1': expected ')' at end of input (position 7)"),
        ("a == 1)", .syntax, 6, ")", "Invalid predicate: 'a == 1)': unbalanced ')' at position 6 near ')'"),
        ("a == 1 garbage", .syntax, 7, "garbage", "Invalid predicate: 'a == 1 garbage': unexpected text after the predicate at position 7 near 'garbage'"),
        ("a == uuid(xyz)", .invalidLiteral, 5, "uuid(xyz)", "Invalid predicate: 'a == uuid(xyz)': invalid UUID at position 5 near 'uuid(xyz)'"),
        ("a == 2020-13-01@00:00:00", .invalidLiteral, 5, "2020-13-01@00:00:00", "Invalid predicate: 'a == 2020-13-01@00:00:00': invalid timestamp at position 5 near '2020-13-01@00:00:00'"),
        ("a == 99999999999999999999", .invalidLiteral, 5, "99999999999999999999", "Invalid predicate: 'a == 99999999999999999999': integer out of range at position 5 near '99999999999999999999'"),
        ("a == B64\"!!\"", .invalidLiteral, 5, "B64\"!!\"", "Invalid predicate: 'a == B64\"!!\"': invalid base64 at position 5 near 'B64\"!!\"'"),
        ("a == 'x\\q'", .syntax, 7, "\\q", "Invalid predicate: 'a == 'x\\q'': invalid escape sequence at position 7 near '\\q'"),
        ("a.@foo > 1", .syntax, 2, "@foo", "Invalid predicate: 'a.@foo > 1': unknown collection operator at position 2 near '@foo'"),
        ("a < [c] 1", .syntax, 2, "<", "Invalid predicate: 'a < [c] 1': string options are not allowed on '<' at position 2 near '<'"),
        ("a ==[x] 1", .syntax, 5, "x", "Invalid predicate: 'a ==[x] 1': expected string options [c], [d] or [cd] at position 5 near 'x'"),
        ("a BETWEEN {1}", .syntax, 10, "{", "Invalid predicate: 'a BETWEEN {1}': BETWEEN expects a list of two values at position 10 near '{'"),
        ("a == 1 LIMIT(-1)", .syntax, 13, "-1", "Invalid predicate: 'a == 1 LIMIT(-1)': LIMIT expects a non-negative integer at position 13 near '-1'"),
        ("a == 1 SORT(a)", .syntax, 13, ")", "Invalid predicate: 'a == 1 SORT(a)': expected ASC or DESC at position 13 near ')'"),
        ("tags.@count.x > 1", .syntax, 11, ".", "Invalid predicate: 'tags.@count.x > 1': @count and @size must end a key path at position 11 near '.'"),
        ("ANY 5 > 1", .syntax, 4, "5", "Invalid predicate: 'ANY 5 > 1': a quantifier must be followed by a key path at position 4 near '5'"),
        ("a == # 1", .syntax, 5, "#", "Invalid predicate: 'a == # 1': unexpected character at position 5 near '#'"),
        ("SUBQUERY(dogs, $d, $d.age > 1) > 0", .syntax, 31, ">", "Invalid predicate: 'SUBQUERY(dogs, $d, $d.age > 1) > 0': SUBQUERY must be followed by .@count at position 31 near '>'"),
        ("SUBQUERY(dogs, d, d.age > 1).@count > 0", .syntax, 15, "d", "Invalid predicate: 'SUBQUERY(dogs, d, d.age > 1).@count > 0': expected a subquery variable such as $x at position 15 near 'd'"),
        ("", .syntax, 0, "", "Invalid predicate: '': expected a value or key path at end of input (position 0)"),
        ("é == 1 && x === 2", .syntax, 12, "===", "Invalid predicate: 'é == 1 && x === 2': unknown operator at position 12 near '==='"),
    ] as [(String, QueryError.Kind, Int, String, String)])
    func reportsKindPositionTokenAndMessage(
        _ text: String, _ kind: QueryError.Kind, _ position: Int, _ token: String, _ message: String
    ) throws {
        let error = try #require(parseError(text))
        #expect(error.kind == kind)
        #expect(error.position == position)
        #expect(error.token == token)
        #expect(error.query == text)
        #expect(error.description == message)
    }

    /// Parentheses, NOTs, lists and subqueries nest at most `QueryParser.State.maxDepth` (200) levels; a deeper
    /// query is a syntax error at the first token past the limit, not a crash of the thread's stack.
    @Test func nestingIsLimited() throws {
        let limit = 200
        func parens(_ n: Int) -> String { String(repeating: "(", count: n) + "a == 1" + String(repeating: ")", count: n) }
        #expect(try QueryParser.parse(parens(limit)).predicate.description == "a == 1")
        let tooDeep = try #require(parseError(parens(limit + 1)))
        #expect(tooDeep.kind == .syntax)
        #expect(tooDeep.position == limit)
        #expect(tooDeep.description.hasSuffix("the query nests more than 200 levels deep at position 200 near '('"))
        for text in [parens(1_000_000), String(repeating: "NOT ", count: 300_000) + "a == 1",
                     String(repeating: "!", count: 300_000) + "a == 1", "a IN " + String(repeating: "{", count: 300_000),
                     String(repeating: "SUBQUERY(items, $x, ", count: 1_000) + "$x.a == 1" + String(repeating: ").@count > 0", count: 1_000)] {
            #expect(parseError(text)?.description.contains("nests more than 200 levels deep") == true)
        }
        #expect(try QueryParser.parse(String(repeating: "NOT ", count: limit) + "a == 1").predicate.description.hasPrefix("NOT"))
    }

    @Test func parsePredicateRejectsSuffixes() throws {
        #expect(throws: QueryError(.syntax, "SORT is not allowed in a predicate", query: "a == 1 SORT(a ASC)",
                                   position: 7, token: "SORT")) {
            try QueryParser.parsePredicate("a == 1 SORT(a ASC)")
        }
    }

    @Test func kindsMatchInCatchClauses() {
        do {
            _ = try QueryParser.parse("a ==")
            Issue.record("expected an error")
        } catch QueryError.Kind.invalidLiteral {
            Issue.record("wrong kind")
        } catch QueryError.Kind.syntax {
            // expected
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
