import Foundation
import Testing

@testable import OutpostCore

/// The byte-level JSON writer: compact, keys sorted, strings escaped, numbers exact.
@Suite struct JSONWriterTests {
    /// Arrays and objects nest at most `JSONReader.maxNesting` levels; deeper text is not JSON to the reader (no
    /// recursion deep enough to exhaust a thread's stack).
    @Test func readsNestingUpToTheLimitOnly() {
        let limit = JSONReader.maxNesting
        #expect(limit == 200)
        func arrays(_ n: Int) -> String { String(repeating: "[", count: n) + String(repeating: "]", count: n) }
        func objects(_ n: Int) -> String { String(repeating: "{\"a\":", count: n) + "1" + String(repeating: "}", count: n) }
        #expect(JSONValue.parse(arrays(limit)) != nil)
        #expect(JSONValue.parse(arrays(limit + 1)) == nil)
        #expect(JSONValue.parse(objects(limit - 1)) != nil, "limit - 1 objects and the number inside: limit levels")
        #expect(JSONValue.parse(objects(limit)) == nil)
        #expect(JSONValue.parse(String(repeating: "[", count: 1_000_000)) == nil)
        #expect(JSONValue.parse(String(repeating: "{\"a\":[", count: 500_000)) == nil)
    }

    @Test func writesCompactSortedJSON() {
        let value = JSONValue.object([
            "b": .array([.int(0), .int(-7), .int(Int64.max), .int(Int64.min), .null, .bool(true), .bool(false)]),
            "a": .object(["z": .double(3), "y": .double(-0.0), "x": .double(1.5), "w": .double(1e20), "v": .double(.nan)]),
            "": .string(""),
        ])
        #expect(value.text == #"{"":"","a":{"v":null,"w":1e+20,"x":1.5,"y":-0.0,"z":3.0},"b":[0,-7,9223372036854775807,-9223372036854775808,null,true,false]}"#)
    }

    @Test func escapesQuotesBackslashesAndControlCharactersOnly() {
        #expect(JSONValue.string("plain ascii").text == #""plain ascii""#)
        #expect(JSONValue.string("q\"b\\n\nr\rt\t\u{1}\u{1f}").text == #""q\"b\\n\nr\rt\t\u0001\u001f""#)
        #expect(JSONValue.string("é ☃ 😀 /").text == "\"é ☃ 😀 /\"")
        #expect(JSONValue.object(["k\"ey": .string("v")]).text == #"{"k\"ey":"v"}"#)
        for text in ["q\"b\\n\nr\rt\t\u{1}", "é ☃ 😀", "plain"] {
            #expect(JSONValue.parse(JSONValue.string(text).text) == .string(text))
        }
    }

    /// Every escape the reader accepts, between runs of plain text, at the ends and back to back; `\u` escapes with
    /// surrogate pairs; and strings whose escapes never end.
    @Test func readsEveryEscape() {
        let cases: [(String, String)] = [
            (#""a\"b\\c\/d\be\ff\ng\rh\ti""#, "a\"b\\c/d\u{8}e\u{c}f\ng\rh\ti"),
            (#""\"\"\\""#, "\"\"\\"),
            (#""\u00e9 \u2603 \ud83d\ude00 end""#, "é ☃ 😀 end"),
            (#""{\"event\":\"read\",\"value\":[1,2]}""#, #"{"event":"read","value":[1,2]}"#),
            (#""x\qy""#, "xqy"),
        ]
        for (json, text) in cases {
            #expect(JSONValue.parse(json) == .string(text), "\(json)")
            #expect(JSONValue.parse("[\(json),1]") == .array([.string(text), .int(1)]), "\(json) in an array")
        }
        for broken in [#""abc\"#, #""abc\""#, #""a\u12""#, #""\u00e9"#] {
            #expect(JSONValue.parse(broken) == nil, "\(broken)")
        }
    }
}
