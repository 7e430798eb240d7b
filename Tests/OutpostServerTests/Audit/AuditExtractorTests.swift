import Foundation
import OutpostCore
import OutpostServerTesting
import Testing

@testable import OutpostServer

/// What the audit index takes from an `AuditEvent` document (``AuditExtractor``), on the payload shapes the event
/// library writes.
@Suite struct AuditExtractorTests {
    static let id = try! ObjectId(string: "65a1f0c2e4b0a1b2c3d4e5f6")

    static func event(_ data: String?, type: String? = "read", extra: [String: Value] = [:]) -> Document {
        var document: Document = [
            "_id": .objectId(id), "timestamp": .date(Date(timeIntervalSince1970: 1_704_164_645.678)),
            "activity": .string("view"), "event": type.map(Value.string) ?? .null,
            "data": data.map(Value.string) ?? .null,
        ]
        for (key, value) in extra { document[key] = value }
        return document
    }

    static func objects(_ data: String, extractor: AuditExtractor = AuditExtractor()) -> [String] {
        extractor.entry(of: event(data), uploader: nil)!.objects.map { "\($0.className)/\($0.primaryKey)" }
    }

    @Test func theFixedFields() throws {
        let entry = try #require(AuditExtractor().entry(of: Self.event("{}", type: "write"), uploader: "user-1"))
        #expect(entry.eventId == "65a1f0c2e4b0a1b2c3d4e5f6")
        #expect(entry.timestamp == 1_704_164_645_678)
        #expect(entry.activity == "view")
        #expect(entry.eventType == "write")
        #expect(entry.userId == "user-1")
        #expect(entry.users == ["user-1"])
        #expect(AuditExtractor().entry(of: Self.event(nil, type: nil), uploader: nil)?.eventType == nil)
        #expect(AuditExtractor().entry(of: ["_id": .int(1)], uploader: nil) == nil, "not an event")
    }

    /// A read: each object of `value`, with ObjectId, integer, string and UUID keys as the library writes them.
    @Test func readPayloads() {
        #expect(Self.objects(#"{"type":"Person","value":[{"_id":"65a1f0c2e4b0a1b2c3d4e5f7","name":"A"}]}"#)
            == ["Person/65a1f0c2e4b0a1b2c3d4e5f7"])
        #expect(Self.objects(#"{"type":"EvPerson","value":[{"_id":1,"age":30},{"_id":-2,"age":3},{"_id":1,"age":30}]}"#)
            == ["EvPerson/1", "EvPerson/-2"], "integers as decimal digits, each object once")
        #expect(Self.objects(#"{"type":"Tag","value":[{"_id":"a b"},{"_id":"00000000-0000-0000-0000-000000000001"}]}"#)
            == ["Tag/a b", "Tag/00000000-0000-0000-0000-000000000001"])
        // Expanded links inside the object are not objects of the event (each followed link is a read of its own).
        #expect(Self.objects(#"{"type":"Link","value":[{"_id":5,"people":[{"_id":6}],"person":{"_id":7}}]}"#) == ["Link/5"])
    }

    /// A write: insertions, deletions, and modifications by their old value (the new value holds changed fields only).
    @Test func writePayloads() {
        let data = #"""
            {"Person":{"deletions":[{"_id":3,"name":"C"}],"insertions":[{"_id":1,"name":"A"}],
            "modifications":[{"newValue":{"name":"B2"},"oldValue":{"_id":2,"name":"B"}},{"newValue":{"_id":9},"oldValue":{}}]},
            "Dog":{"insertions":[{"_id":"rex"}]},"Embedded":{"modifications":[{"newValue":{"v":2},"oldValue":{"v":1}}]}}
            """#
        #expect(Self.objects(data) == ["Dog/rex", "Person/1", "Person/3", "Person/2", "Person/9"])
    }

    /// Custom events, data that is not JSON, JSON of another shape, and keys of other types name no object.
    @Test func otherDataNamesNoObject() {
        #expect(Self.objects("free text").isEmpty)
        #expect(Self.objects(#"{"int": 2}"#).isEmpty)
        #expect(Self.objects(#"[1, 2]"#).isEmpty)
        #expect(Self.objects(#"{"type":"X","value":[{"_id":1.5},{"_id":null},{"_id":{"a":1}},{"name":"no key"},7]}"#).isEmpty)
        #expect(AuditExtractor().entry(of: Self.event(nil), uploader: nil)?.objects == [])
    }

    /// An event naming several objects of several classes.
    @Test func severalObjects() {
        #expect(Self.objects(#"{"A":{"insertions":[{"_id":1},{"_id":2}]},"B":{"deletions":[{"_id":"x"}]}}"#)
            == ["A/1", "A/2", "B/x"])
    }

    /// A class whose primary key is not `_id` (`events.primary_keys`).
    @Test func configuredPrimaryKeys() {
        let extractor = AuditExtractor(primaryKeys: ["Reading": "serial"])
        #expect(Self.objects(#"{"type":"Reading","value":[{"_id":1,"serial":"S-9"}]}"#, extractor: extractor) == ["Reading/S-9"])
        #expect(Self.objects(#"{"type":"Other","value":[{"_id":1,"serial":"S-9"}]}"#, extractor: extractor) == ["Other/1"])
    }

    /// Metadata (string fields other than the fixed ones and the partition key) and the uploader are the user values;
    /// values over 1 KB or holding U+0000 are not indexed.
    @Test func usersAreTheUploaderAndTheMetadata() throws {
        let document = Self.event("{}", extra: [
            "device": .string("d1"), "clinic": .string("user-1"), "realm_id": .string("events-65a1"),
            "huge": .string(String(repeating: "x", count: 1025)), "nul": .string("a\u{0}b"), "empty": .null,
        ])
        let entry = try #require(AuditExtractor(partitionKey: "realm_id").entry(of: document, uploader: "user-1"))
        #expect(entry.users == ["user-1", "d1"])
        let big = Self.objects(#"{"type":"T","value":[{"_id":"\#(String(repeating: "k", count: 1025))"}]}"#)
        #expect(big.isEmpty)
    }

    /// U+0000 in the activity or type (PostgreSQL's text cannot hold it) is stored as U+FFFD.
    @Test func textsStoredInColumnsHoldNoNul() throws {
        var document = Self.event("{}", type: "a\u{0}b")
        document["activity"] = .string("x\u{0}")
        let entry = try #require(AuditExtractor().entry(of: document, uploader: nil))
        #expect(entry.activity == "x\u{FFFD}" && entry.eventType == "a\u{FFFD}b")
    }

    /// The search's cursor is opaque but round-trips, and anything else is refused.
    @Test func cursorsRoundTrip() {
        let cursor = AuditSearch.Cursor(timestamp: -12, eventId: "65a1f0c2e4b0a1b2c3d4e5f6")
        #expect(AuditSearchParameters.cursor(from: AuditSearchParameters.cursorText(cursor)) == cursor)
        for bad in ["", "x", "MTI6", Data("1:ZZ".utf8).base64EncodedString(), Data("a:65a1f0c2e4b0a1b2c3d4e5f6".utf8).base64EncodedString()] {
            #expect(AuditSearchParameters.cursor(from: bad) == nil, "\(bad)")
        }
    }

    @Test func timesAreISO8601WithMilliseconds() {
        #expect(AuditEventFormat.iso8601(milliseconds: 1_704_164_645_678) == "2024-01-02T03:04:05.678Z")
        #expect(AuditEventFormat.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(AuditEventFormat.iso8601(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(AuditEventFormat.iso8601(milliseconds: 951_782_400_005) == "2000-02-29T00:00:00.005Z")
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: -2_000_000_000, to: 4_000_000_000, by: 86_399_917) {
            let text = AuditEventFormat.iso8601(milliseconds: Int64(seconds) * 1000 + 42)
            #expect(formatter.string(from: Date(timeIntervalSince1970: Double(seconds))).dropLast() + ".042Z" == text)
        }
    }

    @Test func csvFieldsAreQuotedAsRFC4180Says() {
        #expect(AuditEventFormat.csvField("plain") == "plain")
        #expect(AuditEventFormat.csvField("a,b") == "\"a,b\"")
        #expect(AuditEventFormat.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(AuditEventFormat.csvField("two\nlines") == "\"two\nlines\"")
    }
}

extension AuditExtractorTests {
    /// A query read of thousands of objects, keys with escapes, white space and nesting the reader skips.
    @Test func largeAndUnusualPayloads() {
        let many = (0..<3000).map { #"{"_id":\#($0 % 2500),"tags":["a","b"],"link":{"_id":"no"}}"# }.joined(separator: ",")
        let keys = Self.objects(#"{"type":"Big","value":[\#(many)]}"#)
        #expect(keys.count == 2500 && keys.first == "Big/0" && keys.last == "Big/2499")
        #expect(Self.objects(#" { "value" : [ { "name" : "x\"y" , "\u005fid" : "k\"1" } ] , "type" : "Esc" } "#) == [#"Esc/k"1"#])
        #expect(Self.objects(#"{"A":{"modifications":[{"oldValue":{"_id":1},"newValue":{"_id":2}}],"other":[1,{"x":[]}]}}"#)
            == ["A/1"])
        #expect(Self.objects(#"{"type":"X","value":[{"_id":1}"#).isEmpty, "cut short")
        #expect(Self.objects(#"{"type":"X","value":[{"_id":1}]} trailing"#) == ["X/1"], "lenient after the payload")
    }
}
