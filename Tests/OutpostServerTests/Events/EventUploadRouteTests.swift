import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// `POST /api/client/v2.0/app/<appId>/events` (Outpost's event upload), against a real server and SQLite storage.
@Suite struct EventUploadRouteTests {
    static func post(_ server: TestServer, _ body: String, as user: DataUser?) async throws -> (status: Int, json: JSONValue) {
        let response = try await server.client.send("POST", server.clientPath("events"), rawBody: body, bearer: user?.token)
        return (response.status, JSONValue.parse(response.text) ?? .null)
    }

    static func event(_ id: String, activity: String = "a", extra: String = "") -> String {
        #"{"_id": {"$oid": "\#(id)"}, "timestamp": {"$date": "2024-01-02T03:04:05.678Z"}, "activity": "\#(activity)", "event": "read", "data": "{}"\#(extra)}"#
    }

    static let ids = ["65a1f0c2e4b0a1b2c3d4e5f1", "65a1f0c2e4b0a1b2c3d4e5f2", "65a1f0c2e4b0a1b2c3d4e5f3"]

    /// Events are stored with their fields; sending the same events again (a lost answer, a crash before the
    /// client deleted them) stores nothing twice; the batch is one history changeset that sync clients receive.
    @Test func storesEventsOnceAndSkipsThoseAlreadyStored() async throws {
        try await withDataServer { server in
            let user = try await server.newUser()
            let first = #"{"partition": "events-65a1f0c2e4b0a1b2c3d4e5f6", "events": [\#(Self.event(Self.ids[0], extra: #", "device": "d1""#)), \#(Self.event(Self.ids[1]))]}"#
            let answer = try await Self.post(server, first, as: user)
            #expect(answer.status == 200)
            #expect(answer.json["received"] == .int(2) && answer.json["inserted"] == .int(2))
            let again = #"{"partition": "events-65a1f0c2e4b0a1b2c3d4e5f6", "events": [\#(Self.event(Self.ids[1])), \#(Self.event(Self.ids[2]))]}"#
            let second = try await Self.post(server, again, as: user)
            #expect(second.json["received"] == .int(2) && second.json["inserted"] == .int(1))

            let documents = try await server.storage.documents(appId: server.appId, collection: "AuditEvent")
            #expect(documents.count == 3)
            let first0 = try #require(documents.first { $0["_id"] == .objectId(try ObjectId(string: Self.ids[0])) })
            #expect(first0["device"] == .string("d1"))
            #expect(first0["activity"] == .string("a"))
            #expect(first0["event"] == .string("read"))
            #expect(first0["timestamp"] == .date(Date(timeIntervalSince1970: 1_704_164_645.678)))
            let latest = try await server.storage.latestServerVersion(appId: server.appId)
            let history = try await server.storage.changesets(appId: server.appId, after: 0, upTo: latest, limit: 10)
            #expect(history.map { $0.draft.changes.count } == [2, 1], "one changeset per batch, only new events")
        }
    }

    @Test func authenticationIsRequired() async throws {
        try await withDataServer { server in
            let body = #"{"partition": "events-x", "events": []}"#
            #expect(try await Self.post(server, body, as: nil).status == 401)
            #expect(try await Self.post(server, body, as: DataUser(id: "x", token: "garbage")).status == 401)
            let user = try await server.newUser()
            let response = try await server.client.send("POST", server.clientPath("events", appId: "other-app"), rawBody: body,
                                                        bearer: user.token)
            #expect(response.status == 404)
        }
    }

    /// Each malformed upload is refused with a message naming what is wrong and where, and stores nothing.
    @Test func malformedUploadsAreRefusedAndStoreNothing() async throws {
        try await withDataServer { server in
            let user = try await server.newUser()
            let good = Self.event(Self.ids[0])
            let cases: [(String, String)] = [
                ("[1]", "must be a JSON object"),
                (#"{"events": []}"#, "'partition' must be a non-empty string"),
                (#"{"partition": "", "events": []}"#, "'partition' must be a non-empty string"),
                (#"{"partition": "p", "events": {}}"#, "'events' must be an array"),
                (#"{"partition": "p", "events": [], "extra": 1}"#, "unknown field 'extra'"),
                (#"{"partition": "p", "events": [\#(good), 3]}"#, "'events[1]' must be an AuditEvent document"),
                (#"{"partition": "p", "events": [{"timestamp": {"$date": "2024-01-02T03:04:05Z"}, "activity": "a"}]}"#,
                 "'events[0]' has no '_id'"),
                (#"{"partition": "p", "events": [{"_id": 1, "timestamp": {"$date": "2024-01-02T03:04:05Z"}, "activity": "a"}]}"#,
                 "'events[0]._id' must be an ObjectId"),
                (#"{"partition": "p", "events": [\#(Self.event(Self.ids[1], extra: #", "n": 5"#))]}"#,
                 "'events[0].n' must be a string or null"),
                (#"{"partition": "p", "events": [\#(good), \#(good)]}"#, "'events[1]._id' repeats an earlier event's _id"),
                (#"{"partition": "p", "events": [\#(Self.event(Self.ids[1], extra: #", "$x": "y""#))]}"#,
                 "invalid field name '$x'"),
            ]
            for (body, message) in cases {
                let answer = try await Self.post(server, body, as: user)
                #expect(answer.status == 400, "\(body)")
                #expect(answer.json["error"]?.stringValue?.contains(message) == true, "\(body): \(answer.json.text)")
            }
            #expect(try await server.storage.documents(appId: server.appId, collection: "AuditEvent").isEmpty)
        }
    }
}
