import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// The admin console in a real browser: `Browser/console-browser.js` (Node.js) drives headless Chromium over the
/// DevTools protocol against a real server holding known data — a refused key, then sign-in; every tab, with a
/// screenshot of each; a function run; the audit search by user and by object (exactly the expected events), an
/// object's timeline, an export downloaded as a file, and the event chain's verification.
///
/// Needs Node.js and Chromium (`OUTPOST_CHROMIUM`, or `chromium` / `chromium-browser` on the `PATH`; `.ci/run`
/// installs both). Without them the test is skipped on a developer machine and fails under `CI`.
@Suite(.timeLimit(.minutes(5))) struct AdminConsoleBrowserTests {
    static let itemP = "641382a1b2c3d4e5f6a7b8c9"
    static let itemQ = "641382a1b2c3d4e5f6a7b8ca"

    @Test(.enabled(if: AdminConsoleBrowserTests.canRun || PostgresTestEnvironment.isCI,
                   Comment(rawValue: "needs node, and Chromium (OUTPOST_CHROMIUM, or chromium on the PATH)")))
    func theConsoleWorksInABrowser() async throws {
        let node = try #require(AdminConsoleTests.node, "Node.js is needed (node on the PATH)")
        let chromium = try #require(Self.chromium, "Chromium is needed (OUTPOST_CHROMIUM, or chromium on the PATH)")
        let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Browser/console-browser.js")
        try #require(FileManager.default.fileExists(atPath: driver.path), "\(driver.path) is missing")
        // Kept after the test, to be looked at; not in the checkout.
        let screenshots = ProcessInfo.processInfo.environment["OUTPOST_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("outpost-console-screenshots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        print("AdminConsoleBrowserTests: screenshots in \(screenshots.path)")

        try await Self.withConsoleServer { server in
            let key = try server.adminKey
            let alice = try await server.newUser()
            let bob = try await server.newUser()
            try await server.ok("Item", "insertMany", #"""
                {"documents": [{"_id": {"$oid": "\#(Self.itemP)"}, "name": "first", "price": 3},
                               {"_id": {"$oid": "\#(Self.itemQ)"}, "name": "second", "price": 10}]}
                """#, as: alice)

            // Alice reads and changes P and reads Q; Bob reads and renames P and records a custom event.
            let p = Self.itemP
            let q = Self.itemQ
            let aliceEvents = [
                AuditEventSeed(id: "65a1f0c2e4b0a1b2c3d4e001", activity: "open item", type: "read",
                               data: Self.read(Self.item(p, "first", 3))),
                AuditEventSeed(id: "65a1f0c2e4b0a1b2c3d4e002", activity: "edit price", type: "write",
                               data: Self.modified(old: Self.item(p, "first", 3), new: #"{"price":4}"#)),
                AuditEventSeed(id: "65a1f0c2e4b0a1b2c3d4e003", activity: "list items", type: "read",
                               data: Self.read(Self.item(q, "second", 10))),
            ]
            let bobEvents = [
                AuditEventSeed(id: "65a1f0c2e4b0a1b2c3d4e004", activity: "open item", type: "read",
                               data: Self.read(Self.item(p, "first", 4))),
                AuditEventSeed(id: "65a1f0c2e4b0a1b2c3d4e005", activity: "rename", type: "write",
                               data: Self.modified(old: Self.item(p, "first", 4), new: #"{"name":"renamed"}"#)),
                AuditEventSeed(id: "65a1f0c2e4b0a1b2c3d4e006", activity: "checkout", type: "payment",
                               data: #"{"amount":12}"#),
            ]
            try await Self.upload(aliceEvents, shard: "65a1f0c2e4b0a1b2c3d4f001", to: server, as: alice)
            try await Self.upload(bobEvents, shard: "65a1f0c2e4b0a1b2c3d4f002", to: server, as: bob)

            let userEventIds: [JSONValue] = aliceEvents.map { .string($0.id) }
            // The events of P: Alice's read and write, Bob's read and write.
            let objectEventIds: [JSONValue] = [aliceEvents[0], aliceEvents[1], bobEvents[0], bobEvents[1]]
                .map { .string($0.id) }
            let scenario: JSONValue = .object([
                "wrongKey": .string(key + "-wrong"),
                "userId": .string(alice.id),
                "collection": .string("Item"),
                "stats": .bool(true),
                "function": .object([
                    "name": .string("sum"),
                    "arguments": .string(#"[{"$numberInt":"1"},{"$numberInt":"2"}]"#),
                    "expectedResult": .string("3"),
                ]),
                "audit": .object([
                    "user": .string(alice.id),
                    "userEventIds": .array(userEventIds),
                    "class": .string("Item"),
                    "pk": .string(p),
                    "objectEventIds": .array(objectEventIds),
                    "showEventId": .string(aliceEvents[1].id),
                    "exportFormat": .string("csv"),
                    "chain": .string("ok"),
                ]),
            ])
            let scenarioFile = screenshots.appendingPathComponent("scenario.json")
            try scenario.text.write(to: scenarioFile, atomically: true, encoding: .utf8)

            let started = Date()
            let output = try await AdminConsoleTests.run(node, [
                driver.path, "--chromium", chromium, "--origin", "http://127.0.0.1:\(server.port)/", "--key", key,
                "--screenshots", screenshots.path, "--scenario", scenarioFile.path, "--timeout", "150",
            ])
            print("AdminConsoleBrowserTests: the browser run took \(Int(Date().timeIntervalSince(started))) s")
            let lastLine = output.split(separator: "\n").last.map(String.init) ?? ""
            let report = try #require(JSONValue.parse(lastLine), "not JSON: \(output)")
            #expect(report["ok"] == .bool(true), "\(output)")
            #expect(report["steps"]?.items.compactMap(\.stringValue) == [
                "refusedKey", "signIn", "overview", "users", "data", "logs", "functions",
                "audit.user", "audit.object", "audit.timeline", "audit.export", "audit.verify",
            ], "\(output)")
            for name in ["overview", "users", "data", "logs", "functions", "audit", "timeline"] {
                let file = screenshots.appendingPathComponent("\(name).png")
                #expect(FileManager.default.fileExists(atPath: file.path), "\(file.path)")
            }
        }
    }

    /// An `Item` as the event library serializes it (keys sorted, the ObjectId as hex).
    static func item(_ id: String, _ name: String, _ price: Int) -> String {
        #"{"_id":"\#(id)","name":"\#(name)","price":\#(price)}"#
    }

    /// A read event's data: the objects read.
    static func read(_ object: String) -> String {
        #"{"type":"Item","value":[\#(object)]}"#
    }

    /// A write event's data: one modified `Item`, `new` holding only the changed fields.
    static func modified(old: String, new: String) -> String {
        #"{"Item":{"modifications":[{"newValue":\#(new),"oldValue":\#(old)}]}}"#
    }

    /// An audit event as the event library uploads it: `_id`, `timestamp`, `activity`, `event` and `data` (JSON text).
    struct AuditEventSeed {
        let id: String
        let activity: String
        let type: String?
        let data: String

        func json(at time: Date) -> JSONValue {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return .object([
                "_id": .object(["$oid": .string(id)]),
                "timestamp": .object(["$date": .string(formatter.string(from: time))]),
                "activity": .string(activity),
                "event": type.map(JSONValue.string) ?? .null,
                "data": .string(data),
            ])
        }
    }

    /// Uploads `events` as one batch, as the event library does (`POST …/events`, docs/events.md "Upload").
    static func upload(
        _ events: [AuditEventSeed], shard: String, to server: TestServer, as user: DataUser
    ) async throws {
        let now = Date()
        let body: JSONValue = .object([
            "partition": .string("events-\(shard)"),
            "events": .array(events.enumerated().map { i, event in
                event.json(at: now.addingTimeInterval(Double(i - events.count) * 60))
            }),
        ])
        let response = try await server.client.send(
            "POST", server.clientPath("events"), rawBody: body.text, bearer: user.token)
        #expect(response.status == 200, "\(response.text)")
        #expect(JSONValue.parse(response.text)?["inserted"] == .int(Int64(events.count)), "\(response.text)")
    }

    /// The development app with one function, `sum`; a real SQLite storage in a temporary directory and the default
    /// sync engine (as `withDataServer`).
    static func withConsoleServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
        guard case .object(var fields) = AppDefinition.development(appId: "console-app").json else {
            throw TestServerError("the development app's JSON is not an object")
        }
        fields["functions"] = .array([.object([
            "name": .string("sum"),
            "source": .string("exports = function(a, b) { return a + b; };"),
            "private": .bool(false),
        ])])
        let app = try AppDefinition(jsonText: JSONValue.object(fields).text)
        return try await withSQLiteServer(app, label: "console-browser", body)
    }

    /// Whether the test can run here: Node.js and Chromium are both found.
    static var canRun: Bool { AdminConsoleTests.node != nil && chromium != nil }

    /// Chromium: `OUTPOST_CHROMIUM`, else `chromium` or `chromium-browser` on the `PATH` (or in /usr/bin).
    static let chromium: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["OUTPOST_CHROMIUM"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        for name in ["chromium", "chromium-browser"] {
            for directory in directories where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }()
}
