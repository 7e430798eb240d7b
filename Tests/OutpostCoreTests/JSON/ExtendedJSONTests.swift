import Foundation
import OutpostCore
import OutpostCoreTesting
import Testing

@Suite struct ExtendedJSONTests {
    static let sample: Document = [
        "_id": .objectId("641382026852d9220b2e2bbf"), "int": .int(42), "double": .double(2.5), "whole": .double(3),
        "nan": .double(.nan), "string": .string("héllo \"q\""), "bool": .bool(true), "null": .null,
        "date": .date(Date(timeIntervalSince1970: 1_700_000_000.123)), "data": .data(Data([0, 1, 255])),
        "uuid": .uuid(UUID(uuidString: "01234567-9ABC-4DEF-9012-3456789ABCDE")!),
        "dec": .decimal128("12.345"), "list": .array([.int(1), .string("a")]),
        "embedded": .document(["city": .string("Oslo")]), "link": .link(className: "Dog", primaryKey: .int(7)),
    ]

    @Test func roundTripsEveryValueType() throws {
        let text = Self.sample.extendedJSONText
        let back = try Document(extendedJSONText: text)
        for key in Self.sample.sortedKeys where key != "nan" {
            #expect(back[key] == Self.sample[key], "field \(key)")
        }
        guard case .double(let nan)? = back["nan"] else { Issue.record("nan lost its type"); return }
        #expect(nan.isNaN)
    }

    /// The bytes writer gives the `JSONValue` form's text exactly, for every kind of value (negative dates too).
    @Test func bytesWriterMatchesTheJSONValueText() throws {
        var sample = Self.sample
        sample["before1970"] = .date(Date(timeIntervalSince1970: -1.5))
        sample["nested"] = .array([.document(["b": .int(1), "a": .array([.null, .double(0.1)])]), .objectId(.generate())])
        sample["escaped"] = .string("\u{1}\n\\ é 😀")
        #expect(sample.extendedJSONText == sample.extendedJSON.text)
        for value in sample.fields.values {
            var bytes: [UInt8] = []
            value.writeExtendedJSON(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == value.extendedJSON.text)
        }
    }

    @Test func integralDoublesKeepTheirTypeThroughCodable() throws {
        let data = try JSONEncoder().encode(Self.sample)
        let back = try JSONDecoder().decode(Document.self, from: data)
        #expect(back["whole"] == .double(3))
        #expect(back["int"] == .int(42))
        #expect(back["_id"] == Self.sample["_id"])
    }

    @Test func acceptsCanonicalForms() throws {
        let doc = try Document(extendedJSONText: """
            {"a": {"$numberLong": "9007199254740993"}, "b": {"$numberInt": "-3"}, "c": {"$date": "2024-01-02T03:04:05.678Z"},
             "d": {"$binary": {"base64": "ASNFZ4mrze8BI0VniavN7w==", "subType": "04"}}}
            """)
        #expect(doc["a"] == .int(9_007_199_254_740_993))
        #expect(doc["b"] == .int(-3))
        #expect(doc["c"] == .date(Date(timeIntervalSince1970: 1_704_164_645.678)))
        #expect(doc["d"] == .uuid(UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!))
    }

    @Test(arguments: [
        ("not json", "Invalid Extended JSON at $: the text is not valid JSON"),
        ("[1]", "Invalid Extended JSON at $: expected an object"),
        ("{\"a\": {\"$oid\": \"xyz\"}}", "Invalid Extended JSON at a: $oid 'xyz' is not 24 hexadecimal characters"),
        ("{\"a\": {\"b\": {\"$numberLong\": \"1.5\"}}}", "Invalid Extended JSON at a.b: $numberLong '1.5' is not an integer"),
        ("{\"a\": [1, {\"$uuid\": \"nope\"}]}", "Invalid Extended JSON at a[1]: $uuid 'nope' is not a UUID"),
        ("{\"a\": {\"$where\": 1}}", "Invalid Extended JSON at a: unknown Extended JSON key '$where'"),
        ("{\"$set\": 1}", "Invalid Extended JSON at $: expected a document, found an Extended JSON value"),
    ])
    func badInputNamesThePath(text: String, message: String) {
        #expect {
            _ = try Document(extendedJSONText: text)
        } throws: { error in
            (error as? ValueError)?.message == message && (error as? ValueError)?.code == .invalidExtendedJSON
        }
    }

    /// A date read from milliseconds is written back as the same milliseconds (plain truncation lost one for about
    /// half of the dates near 1970 and 0.6 % of this century's); a date between milliseconds is still truncated.
    @Test func datesKeepTheirMillisecondsThroughARoundTrip() throws {
        var generator = SplitMix64(seed: 0xda7e)
        let ranges: [ClosedRange<Int64>] = [-62_135_596_800_000...253_402_300_799_999, -10_000...10_000,
                                            0...978_307_200_000, 978_307_200_000...4_102_444_800_000]
        for range in ranges {
            for _ in 0..<20_000 {
                let ms = Int64.random(in: range, using: &generator)
                let date = Date(timeIntervalSince1970: Double(ms) / 1000)
                #expect(date.millisecondsSince1970 == ms, "\(ms)")
                let text = Value.date(date).extendedJSONText
                #expect(text == #"{"$date":{"$numberLong":"\#(ms)"}}"#, "\(ms)")
                #expect(try Document(extendedJSONText: #"{"d":\#(text)}"#)["d"] == .date(date))
            }
        }
        #expect(Date(timeIntervalSince1970: 6.919).millisecondsSince1970 == 6_919)
        #expect(Date(timeIntervalSince1970: 1.0019).millisecondsSince1970 == 1_001)
        #expect(Date(timeIntervalSince1970: -1.0019).millisecondsSince1970 == -1_002)
        #expect(Date(timeIntervalSince1970: 1_700_000_000.1239).millisecondsSince1970 == 1_700_000_000_123)
        // Beyond 64 bits of milliseconds (a $date near Int64.max read back): the ends, not a trap.
        #expect(Date(timeIntervalSince1970: Double(Int64.max) / 1000).millisecondsSince1970 == .max)
        #expect(Date(timeIntervalSince1970: -1e300).millisecondsSince1970 == .min)
        #expect(Value.date(Date(timeIntervalSince1970: 1e300)).extendedJSONText == #"{"$date":{"$numberLong":"\#(Int64.max)"}}"#)
    }
}
