import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

@testable import Outpost

/// Issue 35: events recorded through the client library by two users, uploaded to a real server (SQLite), are found
/// exactly through the admin API's audit search, by user and by object.
@Suite(.timeLimit(.minutes(3)))
struct EventAuditTests {
    /// Alice creates person 7 and reads it; Bob reads and changes his person 7 and, in another scope, creates person 8
    /// and records a custom event. By object (EvPerson, 7): Alice's two events and Bob's read and write of it. By user:
    /// each one's own events. By metadata: Bob's.
    @Test func eventsOfTwoUsersAreFoundByUserAndByObject() async throws {
        try await TemporaryDirectory.with("audit-e2e") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await withTestServer(configuration: try seedServerApp(), storage: storage) { server in
                try await withClientApp(server) { app in
                    try await app.emailPasswordAuth.registerUser(email: "alice@example.com", password: "password1")
                    try await app.emailPasswordAuth.registerUser(email: "bob@example.com", password: "password2")
                    let alice = try await app.login(credentials: .emailPassword(email: "alice@example.com", password: "password1"))
                    let bob = try await app.login(credentials: .emailPassword(email: "bob@example.com", password: "password2"))
                    #expect(alice.id != bob.id)

                    let aliceRealm = try await Realm(configuration: try localEventConfiguration(
                        EventConfiguration(metadata: ["role": "nurse"], syncUser: alice), types: [EvPerson.self]))
                    var scope = aliceRealm.events!.beginScope(activity: "alice creates")
                    try aliceRealm.write { aliceRealm.add(EvPerson(7, "Ann", 30)) }
                    try await scope.commit()
                    scope = aliceRealm.events!.beginScope(activity: "alice views")
                    #expect(aliceRealm.object(ofType: EvPerson.self, forPrimaryKey: 7)?.name == "Ann")
                    try await scope.commit()

                    let bobRealm = try await Realm(configuration: try localEventConfiguration(
                        EventConfiguration(metadata: ["role": "auditor"], syncUser: bob), types: [EvPerson.self]))
                    try bobRealm.write { bobRealm.add(EvPerson(7, "Ann", 30)) }  // no scope: no event
                    scope = bobRealm.events!.beginScope(activity: "bob changes")
                    let person = try #require(bobRealm.object(ofType: EvPerson.self, forPrimaryKey: 7))
                    try bobRealm.write { person.age = 31 }
                    try await scope.commit()
                    scope = bobRealm.events!.beginScope(activity: "bob adds")
                    try bobRealm.write { bobRealm.add(EvPerson(8, "Ben", 40)) }
                    try await scope.commit()
                    try await bobRealm.events!.recordEvent(activity: "bob notes", eventType: "note", data: "checked")

                    try await eventuallyAsync(timeout: .seconds(30), "the 6 events reach the server") {
                        try await storage.documentCount(appId: server.appId, collection: "AuditEvent") == 6
                    }
                    let key = try String(contentsOf: server.dataDirectory.appendingPathComponent("admin-key"), encoding: .utf8)
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                    func search(_ query: String) async throws -> [(activity: String, type: String, user: String)] {
                        let response = try await server.client.send(
                            "GET", "/api/admin/v1/audit/events?" + query, headers: ["X-Admin-Key": key])
                        #expect(response.status == 200, "\(response.text)")
                        guard case .object(let fields)? = JSONValue.parse(response.text), case .array(let events)? = fields["events"]
                        else { return [] }
                        if case .int(let total)? = fields["total"] { #expect(Int(total) == events.count, "\(query) total") }
                        return events.compactMap { event in
                            guard case .object(let e) = event, case .string(let activity)? = e["activity"],
                                case .string(let type)? = e["type"], case .string(let user)? = e["user"]
                            else { return nil }
                            return (activity, type, user)
                        }
                    }
                    func described(_ found: [(activity: String, type: String, user: String)]) -> [String] {
                        found.map { "\($0.activity) \($0.type) \($0.user == alice.id ? "alice" : $0.user == bob.id ? "bob" : $0.user)" }
                            .sorted()
                    }
                    #expect(described(try await search("class=EvPerson&pk=7")) == [
                        "alice creates write alice", "alice views read alice", "bob changes read bob", "bob changes write bob",
                    ])
                    #expect(described(try await search("user=\(alice.id)")) == ["alice creates write alice", "alice views read alice"])
                    #expect(described(try await search("user=\(bob.id)")) == [
                        "bob adds write bob", "bob changes read bob", "bob changes write bob", "bob notes note bob",
                    ])
                    #expect(described(try await search("user=auditor&class=EvPerson&pk=7&type=write")) == ["bob changes write bob"])
                    #expect(described(try await search("class=EvPerson&pk=8")) == ["bob adds write bob"])
                    let newestFirst = try await server.client.send(
                        "GET", "/api/admin/v1/audit/events?class=EvPerson&pk=7", headers: ["X-Admin-Key": key])
                    guard case .object(let fields)? = JSONValue.parse(newestFirst.text), case .array(let events)? = fields["events"]
                    else { Issue.record("no events"); return }
                    let times = events.compactMap { event -> String? in
                        if case .object(let e) = event, case .string(let t)? = e["timestamp"] { t } else { nil }
                    }
                    #expect(times == times.sorted(by: >), "newest first")
                    let verify = try await server.client.send("GET", "/api/admin/v1/audit/verify", headers: ["X-Admin-Key": key])
                    #expect(verify.text.contains(#""ok":true"#), "\(verify.text)")
                }
            }
            try await storage.close()
        }
    }
}
