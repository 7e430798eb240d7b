import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing

/// A server for audit tests on a driver's storage (optionally wrapped, to watch its calls), with the development app
/// (or `app`) and the server's own sync engine.
func withAuditServer<T: Sendable>(
    _ driver: Driver, app: AppDefinition = .development(appId: "audit-app"),
    wrap: @escaping @Sendable (any ServerStorage) -> any ServerStorage = { $0 },
    _ body: @Sendable (TestServer, any ServerStorage) async throws -> T
) async throws -> T {
    try await driver.withStorage { storage in
        try await withTestServer(configuration: app, storage: wrap(storage)) { server in try await body(server, storage) }
    }
}

/// One event of an upload body, in the form the event library sends.
struct UploadEvent {
    var id = ObjectId.generate()
    var timestamp: Int64 = 1_704_164_645_678
    var activity = "view"
    var type: String? = "read"
    var data: String? = "{}"
    var metadata: [String: String] = [:]

    var json: JSONValue {
        var fields: [String: JSONValue] = [
            "_id": .object(["$oid": .string(id.stringValue)]),
            "timestamp": .object(["$date": .object(["$numberLong": .string(String(timestamp))])]),
            "activity": .string(activity), "event": type.map(JSONValue.string) ?? .null,
            "data": data.map(JSONValue.string) ?? .null,
        ]
        for (key, value) in metadata { fields[key] = .string(value) }
        return .object(fields)
    }

    /// A read event of objects of a class with these `_id`s (strings as given, integers as numbers).
    static func read(_ className: String, _ keys: [JSONValue], timestamp: Int64, activity: String = "view") -> UploadEvent {
        let objects = JSONValue.array(keys.map { .object(["_id": $0, "name": .string("x")]) })
        return UploadEvent(timestamp: timestamp, activity: activity, type: "read",
                           data: JSONValue.object(["type": .string(className), "value": objects]).text)
    }

    /// A write event modifying one object.
    static func write(_ className: String, _ key: JSONValue, timestamp: Int64, activity: String = "edit") -> UploadEvent {
        let change = JSONValue.object(["modifications": .array([.object([
            "oldValue": .object(["_id": key, "name": .string("old")]), "newValue": .object(["name": .string("new")]),
        ])])])
        return UploadEvent(timestamp: timestamp, activity: activity, type: "write",
                           data: JSONValue.object([className: change]).text)
    }
}

extension TestServer {
    /// Uploads events as `user` (one batch); expects success.
    func upload(_ events: [UploadEvent], as user: DataUser, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let body = JSONValue.object([
            "partition": .string("events-\(ObjectId.generate().stringValue)"), "events": .array(events.map(\.json)),
        ]).text
        let response = try await client.send("POST", clientPath("events"), rawBody: body, bearer: user.token)
        #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
    }

    /// An admin API GET with the admin key (or `key`).
    func admin(_ path: String, key: String? = nil) async throws -> TestHTTPClient.Response {
        try await client.send("GET", "/api/admin/v1/" + path, headers: ["X-Admin-Key": try key ?? adminKey])
    }

    /// The ids of a search's events, and its answer.
    func auditIds(_ query: String) async throws -> (ids: [String], json: JSONValue) {
        let response = try await admin("audit/events?" + query)
        #expect(response.status == 200, "\(query): \(response.text)")
        let json = JSONValue.parse(response.text) ?? .null
        return (json["events"]?.items.compactMap { $0["id"]?.stringValue } ?? [], json)
    }
}

/// Runs one SQL statement on a driver's database as it is (to tamper with stored events).
func execute(_ sql: String, on storage: any ServerStorage) async throws {
    if let sqlite = storage as? SQLiteStorage {
        try await sqlite.execute(unsafeSQL: sql)
    } else if let postgres = storage as? PostgresStorage {
        try await postgres.execute(unsafeSQL: sql)
    } else {
        Issue.record("no SQL for \(type(of: storage))")
    }
}

/// Newest first, as the audit API orders: by timestamp, then id, descending.
func newestFirst(_ events: [UploadEvent]) -> [String] {
    events.sorted { ($0.timestamp, $0.id.stringValue) > ($1.timestamp, $1.id.stringValue) }.map(\.id.stringValue)
}
