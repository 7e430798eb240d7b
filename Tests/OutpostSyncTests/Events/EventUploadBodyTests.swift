import Foundation
import OutpostCore
import Testing

@testable import Outpost
@testable import OutpostServer

/// The event library's upload body against the server's reader of it.
@Suite struct EventUploadBodyTests {
    /// The library sends each event in the exact form the server stores (fields in sorted key order, metadata keys
    /// anywhere among the fixed ones), so the server keeps every event's bytes as its stored text.
    @Test func everyEventArrivesInTheFormTheServerStores() throws {
        let metadataSets: [[String: String]] = [
            [:], ["device": "d"], ["Device": "D", "zone": "z"], ["aa": "1", "b": "2", "eventual": "3", "zz": "4"],
            ["_a": "below _id", "ü-key": "non-ASCII key", "quote\"key": "v\u{01}\n"],
        ]
        var events: [StoredEvent] = []
        for (n, metadata) in metadataSets.enumerated() {
            events.append(StoredEvent(id: .generate(), timestamp: Date(timeIntervalSince1970: 1_700_000_000.123 + Double(n)),
                                      activity: "scope \"\(n)\" é", event: n % 2 == 0 ? "write" : nil,
                                      data: n % 3 == 0 ? nil : #"{"Item":{"insertions":[{"name":"a\\b"}]}}"#,
                                      metadata: metadata))
        }
        let body = EventUploadBody.bytes(partition: "events-65a1b2c3d4e5f60718293a4b", events: events)
        let settings = try SyncAppSettings(app: try AppDefinition(jsonText: """
            {"app_id": "a", "sync": {"mode": "flexible", "queryable_fields_names": ["_id"], "development_mode_enabled": true}}
            """))
        let batch = try #require(EventBatchReader.read(body, settings: settings))
        #expect(batch.documents.count == events.count)
        for (i, document) in batch.documents.enumerated() {
            #expect(document["activity"] == .string(events[i].activity))
            for (key, value) in events[i].metadata { #expect(document[key] == .string(value)) }
            let asciiKeys = events[i].metadata.keys.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 && $0 != 0x22 } }
            if asciiKeys {
                #expect(batch.texts[i] == document.extendedJSONText, "event \(i) is kept as it came")
            } else {
                #expect(batch.texts[i] == nil || batch.texts[i] == document.extendedJSONText)
            }
        }
    }
}
