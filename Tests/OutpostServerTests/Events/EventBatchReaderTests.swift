import Foundation
import OutpostCore
import OutpostCoreTesting
import Testing

@testable import OutpostServer

/// The direct reader of event upload bodies gives exactly the general path's batch for the usual shape, and
/// leaves everything else (other forms, bad values) to the general path, which names what is wrong.
@Suite struct EventBatchReaderTests {
    static func settings(partitionKey: Bool = false) throws -> SyncAppSettings {
        let sync = partitionKey
            ? #""sync": {"mode": "partition", "partition": {"key": "_partition", "type": "string"}, "development_mode_enabled": true}"#
            : #""sync": {"mode": "flexible", "queryable_fields_names": ["_id"], "development_mode_enabled": true}"#
        return try SyncAppSettings(app: try AppDefinition(jsonText: #"{"app_id": "a", \#(sync)}"#))
    }

    /// The general path's batch (nil when it refuses the body).
    static func general(_ text: String, _ settings: SyncAppSettings) -> [Document]? {
        guard case .object(let body)? = JSONValue.parse(text) else { return nil }
        return try? EventBatch(body: body, settings: settings).documents
    }

    static func direct(_ text: String, _ settings: SyncAppSettings) -> [Document]? {
        EventBatchReader.read(Array(text.utf8), settings: settings)?.documents
    }

    @Test func theUsualShapeReadsAsTheGeneralPathReadsIt() throws {
        let bodies = [
            #"{"partition":"events-1","events":[{"_id":{"$oid":"65a1b2c3d4e5f60718293a4b"},"timestamp":{"$date":{"$numberLong":"1700000000123"}},"activity":"a \"q\" \u00e9\n","event":"write","data":null,"device":"d"}]}"#,
            #" { "events" : [ { "activity" : "x" , "_id" : { "$oid" : "65a1b2c3d4e5f60718293a4c" } , "timestamp" : { "$date" : { "$numberLong" : "-5" } } , "event" : null } , {"_id":{"$oid":"65a1b2c3d4e5f60718293a4d"},"timestamp":{"$date":{"$numberLong":"0"}},"activity":""} ] , "partition" : "p" } "#,
            #"{"partition":"p","events":[]}"#,
        ]
        for partitionKey in [false, true] {
            let settings = try Self.settings(partitionKey: partitionKey)
            for body in bodies {
                let direct = Self.direct(body, settings)
                #expect(direct != nil, "read directly: \(body)")
                #expect(direct == Self.general(body, settings), "\(body)")
            }
        }
        let withKey = try #require(Self.direct(bodies[0], try Self.settings(partitionKey: true)))
        #expect(withKey[0]["_partition"] == .string("events-1"))
    }

    @Test func otherFormsAndBadValuesAreLeftToTheGeneralPath() throws {
        let settings = try Self.settings()
        let id = #""_id":{"$oid":"65a1b2c3d4e5f60718293a4b"}"#
        let ts = #""timestamp":{"$date":{"$numberLong":"1"}}"#
        let cases: [(body: String, generalAccepts: Bool)] = [
            (#"{"partition":"p","events":[{\#(id),"timestamp":{"$date":"2024-01-02T03:04:05.678Z"},"activity":"a"}]}"#, true),
            (#"{"partition":"p","events":[{\#(id),\#(ts),"activity":null}]}"#, false),
            (#"{"partition":"p","events":[{\#(id),\#(ts),"activity":"a","n":1}]}"#, false),
            (#"{"partition":"p","events":[{\#(id),\#(ts),"activity":"a","a.b":"x"}]}"#, false),
            (#"{"partition":"p","events":[{\#(id),\#(ts),"activity":"a","$x":"x"}]}"#, false),
            (#"{"partition":"p","events":[{\#(id),\#(ts)}]}"#, false),
            (#"{"partition":"p","events":[{\#(id),\#(ts),"activity":"a"},{\#(id),\#(ts),"activity":"b"}]}"#, false),
            (#"{"partition":"","events":[]}"#, false),
            (#"{"partition":"p","events":[],"more":1}"#, false),
            (#"{"partition":"p","events":[]} x"#, false),
            (#"{"partition":"p","events":[{"_id":{"$oid":"nothex"},\#(ts),"activity":"a"}]}"#, false),
        ]
        for (body, generalAccepts) in cases {
            #expect(Self.direct(body, settings) == nil, "left to the general path: \(body)")
            #expect((Self.general(body, settings) != nil) == generalAccepts, "\(body)")
        }
        let many = (0...EventBatch.maxEvents).map { n in
            #"{"_id":{"$oid":"\#(String(format: "%024x", n))"},\#(ts),"activity":"a"}"#
        }
        #expect(Self.direct(#"{"partition":"p","events":[\#(many.joined(separator: ","))]}"#, settings) == nil)
    }

    /// The kept texts: an event in the stored form keeps its bytes, and a kept text is always exactly what the
    /// server would write for the document; any other form gives no text (the server writes it).
    @Test func eventsInTheStoredFormKeepTheirBytesAsTheirText() throws {
        let settings = try Self.settings()
        let id = #""_id":{"$oid":"65a1b2c3d4e5f60718293a4b"}"#
        let ts = #""timestamp":{"$date":{"$numberLong":"1700000000123"}}"#
        func event(_ fields: String) -> String { #"{"partition":"p","events":[{\#(fields)}]}"# }
        let canonical = [
            #"\#(id),"activity":"a","data":"{\"k\":[1,\"\\\\ \n\r\t\u0001\u001f é 😀\"]}","event":null,\#(ts)"#,
            #"\#(id),"activity":"","data":null,"device":"d","event":"write",\#(ts),"zone":"z""#,
            #""Device":"D",\#(id),"activity":"a",\#(ts)"#,
        ]
        let other = [
            #"\#(ts),\#(id),"activity":"a""#,                                              // keys out of order
            #"\#(id), "activity":"a",\#(ts)"#,                                             // white space
            #"\#(id),"activity":"a\/b",\#(ts)"#,                                            // an escape the server does not write
            #"\#(id),"activity":"\u00e9",\#(ts)"#,                                          // é escaped
            #"\#(id),"activity":"\u001F",\#(ts)"#,                                          // uppercase hex
            #"\#(id),"activity":"\b",\#(ts)"#,                                              // \b instead of \u0008
            #""_id":{"$oid":"65A1B2C3D4E5F60718293A4B"},"activity":"a",\#(ts)"#,            // uppercase ObjectId
            #"\#(id),"activity":"a","timestamp":{"$date":{"$numberLong":"01"}}"#,          // a leading zero
            #"\#(id),"activity":"a","activity":"b",\#(ts)"#,                                // a repeated key
            #"\#(id),"activity":"a","timestamp":{"$date":{"$numberLong":"9223372036854775000"}}"#,  // no such Date
        ]
        for fields in canonical {
            let batch = try #require(EventBatchReader.read(Array(event(fields).utf8), settings: settings), "\(fields)")
            #expect(batch.texts == [batch.documents[0].extendedJSONText], "\(fields)")
            #expect(batch.texts[0] == "{" + fields + "}")
        }
        for fields in other {
            let batch = try #require(EventBatchReader.read(Array(event(fields).utf8), settings: settings), "\(fields)")
            #expect(batch.texts == [nil], "\(fields)")
        }
        // A partition-based app adds the partition field: the stored text is then written by the server.
        let partitioned = try #require(EventBatchReader.read(Array(event(canonical[0]).utf8), settings: try Self.settings(partitionKey: true)))
        #expect(partitioned.texts == [nil])
        // Invalid UTF-8 is repaired when read, so its bytes are not the stored text.
        var invalid = Array(event(#"\#(id),"activity":"aX",\#(ts)"#).utf8)
        invalid[invalid.firstIndex(of: UInt8(ascii: "X"))!] = 0xFF
        #expect(try #require(EventBatchReader.read(invalid, settings: settings)).texts == [nil])
    }

    /// Seeded random strings: whatever the reader keeps is the server's own text for the document.
    @Test func keptTextsAlwaysEqualTheServersOwnText() throws {
        let settings = try Self.settings()
        var generator = SplitMix64(seed: 0x5eed_e7e5)
        let pieces = ["a", "é", "😀", "\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1f}", "\u{08}", "/", " ", "{}[]:,"]
        let escapes = [#"\/"#, #"\u00e9"#, #"\b"#, #"\f"#, #"\u0041"#, #"\u001F"#, #"\ud83d\ude00"#]
        var kept = 0
        for round in 0..<400 {
            var value = ""
            for _ in 0..<Int.random(in: 0...12, using: &generator) { value += pieces.randomElement(using: &generator)! }
            var literal: [UInt8] = []
            JSONValue.writeString(value, to: &literal)
            var text = String(decoding: literal, as: UTF8.self)
            if round % 3 == 0 {  // put in an escape the server does not write
                text.insert(contentsOf: escapes.randomElement(using: &generator)!, at: text.index(before: text.endIndex))
            }
            let body = #"{"partition":"p","events":[{"_id":{"$oid":"65a1b2c3d4e5f60718293a4b"},"activity":\#(text),"timestamp":{"$date":{"$numberLong":"\#(round * 7919 - 1000)"}}}]}"#
            let batch = try #require(EventBatchReader.read(Array(body.utf8), settings: settings), "\(body)")
            #expect(batch.documents == Self.general(body, settings), "\(body)")
            if let text = batch.texts[0] {
                kept += 1
                #expect(text == batch.documents[0].extendedJSONText, "\(body)")
            }
        }
        #expect(kept > 200, "most of the events are in the stored form")
    }
}
