import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing

/// The admin API's audit search (`GET /api/admin/v1/audit/events`) over events uploaded through the event route, on
/// SQLite and PostgreSQL.
@Suite(.timeLimit(.minutes(5))) struct AuditAPITests {
    static let t0: Int64 = 1_704_164_645_000

    /// Alice and Bob read and write Item 1 and 2 (ObjectId, integer and string keys among them), Bob's device is in
    /// the metadata; each filter alone and together finds exactly its events, newest first, with the total.
    @Test(arguments: Driver.enabled)
    func searchesByEachFilterAndTogether(driver: Driver) async throws {
        try await withAuditServer(driver) { server, _ in
            let alice = try await server.newUser()
            let bob = try await server.newUser()
            let oid = "65a1f0c2e4b0a1b2c3d4e5f6"
            let a1 = UploadEvent.read("Item", [.string(oid)], timestamp: Self.t0 + 1)
            let a2 = UploadEvent.write("Item", .string(oid), timestamp: Self.t0 + 2)
            let a3 = UploadEvent(timestamp: Self.t0 + 3, activity: "note", type: "custom", data: "not json, with \"quotes\"")
            var b1 = UploadEvent.read("Item", [.int(2), .string(oid)], timestamp: Self.t0 + 2)
            b1.metadata = ["device": "ipad-7"]
            var b2 = UploadEvent.write("Item", .int(2), timestamp: Self.t0 + 5)
            b2.metadata = ["device": "ipad-7"]
            var b3 = UploadEvent.read("Other", [.string("00000000-0000-0000-0000-000000000001")], timestamp: Self.t0 + 6)
            b3.metadata = ["device": "ipad-7"]
            try await server.upload([a1, a2, a3], as: alice)
            try await server.upload([b1, b2, b3], as: bob)
            let all = [a1, a2, a3, b1, b2, b3]

            func expect(_ query: String, _ events: [UploadEvent], sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let (ids, json) = try await server.auditIds(query)
                #expect(ids == newestFirst(events), "\(query)", sourceLocation: sourceLocation)
                #expect(json["total"] == .int(Int64(events.count)), "\(query) total", sourceLocation: sourceLocation)
            }
            try await expect("", all)
            try await expect("user=\(alice.id)", [a1, a2, a3])
            try await expect("user=\(bob.id)", [b1, b2, b3])
            try await expect("user=ipad-7", [b1, b2, b3])
            try await expect("activity=note", [a3])
            try await expect("type=read", [a1, b1, b3])
            try await expect("type=write", [a2, b2])
            try await expect("type=custom", [a3])
            try await expect("class=Item&pk=\(oid)", [a1, a2, b1])
            try await expect("class=Item&pk=2", [b1, b2])
            try await expect("class=Other&pk=00000000-0000-0000-0000-000000000001", [b3])
            try await expect("class=Item&pk=3", [])
            try await expect("class=Item&pk=\(oid)&user=\(bob.id)", [b1])
            try await expect("class=Item&pk=\(oid)&type=write", [a2])
            try await expect("user=\(alice.id)&type=read", [a1])
            let iso = { (ms: Int64) in ISO8601DateFormatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds]) }
            try await expect("since=\(iso(Self.t0 + 2))&until=\(iso(Self.t0 + 5))", [a2, a3, b1, b2])
            try await expect("since=\(iso(Self.t0 + 5))", [b2, b3])
            try await expect("until=\(iso(Self.t0 + 1))", [a1])
            try await expect("user=ipad-7&since=\(iso(Self.t0 + 3))&class=Item&pk=2", [b2])

            // One event's fields.
            let (_, json) = try await server.auditIds("class=Item&pk=2&type=read")
            let event = try #require(json["events"]?.items.first)
            #expect(event["id"] == .string(b1.id.stringValue))
            #expect(event["timestamp"] == .string("2024-01-02T03:04:05.002Z"))
            #expect(event["activity"] == .string("view") && event["type"] == .string("read"))
            #expect(event["user"] == .string(bob.id))
            #expect(event["metadata"] == .object(["device": .string("ipad-7")]))
            #expect(event["data"]?["type"] == .string("Item"), "data parsed")
            #expect(event["objects"] == .array([
                .object(["class": .string("Item"), "pk": .string("2")]),
                .object(["class": .string("Item"), "pk": .string(oid)]),
            ]))
            #expect(json["next_cursor"] == .null)
            let custom = try await server.auditIds("activity=note").json["events"]?.items.first
            #expect(custom?["data"] == .string("not json, with \"quotes\""), "data that is not JSON, as text")
            #expect(custom?["objects"] == .array([]))
        }
    }

    /// Pages of 4 through 30 events, while 5 newer and 3 older events arrive between pages: no event is returned
    /// twice, every event there at the start is returned, each page is newest first, and the last has no cursor.
    @Test(arguments: Driver.enabled)
    func cursorPagesHaveNoDuplicatesOrGapsWhileEventsArrive(driver: Driver) async throws {
        try await withAuditServer(driver) { server, _ in
            let user = try await server.newUser()
            // Pairs share a millisecond, so ties are ordered by id.
            let initial = (0..<30).map { UploadEvent(timestamp: Self.t0 + 1_000 + Int64($0 / 2)) }
            try await server.upload(initial, as: user)
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let (ids, json) = try await server.auditIds("limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""))
                seen += ids
                cursor = json["next_cursor"]?.stringValue
                pages += 1
                if pages == 2 {
                    try await server.upload((0..<5).map { UploadEvent(timestamp: Self.t0 + 5_000 + Int64($0)) }, as: user)
                }
                if pages == 3 {
                    try await server.upload((0..<3).map { UploadEvent(timestamp: Self.t0 + Int64($0)) }, as: user)
                }
            } while cursor != nil && pages < 20
            #expect(Set(seen).count == seen.count, "no duplicates")
            #expect(Array(seen.prefix(30)) == newestFirst(initial), "the first events in order, none missing")
            #expect(seen.count == 33, "the older events that arrived are on later pages; the newer are not")
        }
    }

    /// Missing or wrong admin key, a user's token: 403. Bad parameters: 400 naming them. A limit over 500 is capped.
    @Test(arguments: Driver.enabled)
    func refusesBadRequests(driver: Driver) async throws {
        try await withAuditServer(driver) { server, _ in
            let key = try server.adminKey
            let user = try await server.newUser()
            for path in ["audit/events", "audit/export", "audit/verify", "stats"] {
                #expect(try await server.client.send("GET", "/api/admin/v1/" + path).status == 403, "\(path)")
                #expect(try await server.admin(path, key: key + "x").status == 403, "\(path)")
                let withToken = try await server.client.send("GET", "/api/admin/v1/" + path, bearer: user.token)
                #expect(withToken.status == 403, "a user's access token is not the admin key: \(path)")
            }
            let huge = String(repeating: "k", count: 1025)
            let cases: [(String, String)] = [
                ("since=yesterday", "'since'"), ("until=soon", "'until'"),
                ("since=2024-02-01T00:00:00Z&until=2024-01-01T00:00:00Z", "'since' must not be after 'until'"),
                ("class=Item", "'class' needs 'pk'"), ("pk=1", "'pk' needs 'class'"),
                ("limit=0", "'limit'"), ("limit=ten", "'limit'"), ("cursor=bogus", "'cursor'"),
                ("pk=\(huge)&class=Item", "'pk' may be at most 1024 bytes"), ("user=\(huge)", "'user' may be at most"),
                ("activity=a%0Ab", "'activity' must not contain control characters"), ("type=\(huge)", "'type'"),
            ]
            for (query, message) in cases {
                for path in ["audit/events?", "audit/export?format=csv&"] {
                    let response = try await server.admin(path + query)
                    #expect(response.status == 400, "\(path)\(query)")
                    #expect(response["error"]?.contains(message) == true, "\(path)\(query): \(response.text)")
                }
            }
            let format = try await server.admin("audit/export?format=xml")
            #expect(format.status == 400 && format["error"]?.contains("'format'") == true)

            try await server.upload((0..<510).map { UploadEvent(timestamp: Self.t0 + Int64($0)) }, as: user)
            let capped = try await server.auditIds("limit=100000")
            #expect(capped.ids.count == 500, "capped at 500")
            #expect(capped.json["total"] == .int(510))
            #expect(capped.json["next_cursor"]?.stringValue != nil)
            #expect(try await server.auditIds("").ids.count == 50, "50 by default")
        }
    }

    /// `GET stats`: users, collections with counts, connections, the last hour's compensating writes and errors, and
    /// 24 hourly buckets of ingested events, the current hour last.
    @Test func statsForTheOverview() async throws {
        try await withAuditServer(.sqlite) { server, storage in
            let user = try await server.newUser()
            _ = try await server.newUser()
            try await server.upload((0..<3).map { _ in UploadEvent() }, as: user)
            let now = Date()
            for (kind, level) in [("compensating_write", "info"), ("sync", "error"), ("auth", "info")] {
                try await storage.appendLog(LogRecord(appId: server.appId, time: now, kind: kind, level: level, message: "m"))
            }
            try await storage.appendLog(LogRecord(appId: server.appId, time: now.addingTimeInterval(-7200),
                                                  kind: "compensating_write", level: "error", message: "old"))
            let response = try await server.admin("stats")
            #expect(response.status == 200)
            let json = try #require(response.json)
            #expect(json["users"] == .int(2))
            #expect(json["collections"] == .array([.object(["name": .string("AuditEvent"), "documents": .int(3)])]))
            #expect(json["connections"] == .int(0))
            #expect(json["last_hour"] == .object(["compensating_writes": .int(1), "errors": .int(1)]))
            let hours = json["events_per_hour"]?.items ?? []
            #expect(hours.count == 24)
            #expect(hours.last?["count"] == .int(3) && hours.dropLast().allSatisfy { $0["count"] == .int(0) })
            let hourStart = Int64(now.timeIntervalSince1970) / 3600 * 3600 * 1000
            #expect(hours.last?["hour"] == .string(AuditEventFormat.iso8601(milliseconds: hourStart)))
        }
    }
}
