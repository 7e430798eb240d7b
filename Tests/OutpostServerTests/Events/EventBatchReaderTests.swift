import Foundation
import OutpostCore
import Testing

@testable import OutpostServer

/// The direct reader of event upload bodies gives exactly the general path's batch for the usual shape, and
/// leaves everything else (other forms, bad values) to the general path, which names what is wrong.
@Suite struct EventBatchReaderTests {
    static func settings(partitionKey: Bool = false) throws -> SyncAppSettings {
        let sync = partitionKey
            ? #""sync": {"mode": "partition", "partition": {"key": "_partition", "type": "string"}, "development_mode_enabled": true}"#
            : #""sync": {"mode": "flexible", "queryable_fields_names": ["_id"], "development_mode_enabled": true}"#
        return try SyncAppSettings(app: try AppConfiguration(jsonText: #"{"app_id": "a", \#(sync)}"#))
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
}
