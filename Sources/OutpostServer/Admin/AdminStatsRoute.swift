import Foundation
import Hummingbird
import OutpostCore

/// `GET stats` (admin key; Outpost-only): the figures of the admin console's overview in one answer:
///
/// ```json
/// {"users": 12, "collections": [{"name": "Item", "documents": 40}], "connections": 3,
///  "last_hour": {"compensating_writes": 1, "errors": 0},
///  "events_per_hour": [{"hour": "2024-05-01T12:00:00.000Z", "count": 250}, …]}
/// ```
///
/// `events_per_hour` has 24 buckets, the current hour last, each the events ingested in that hour (from the audit
/// chain's batches; 0 where none). `last_hour` counts the server log's records of the last 60 minutes of kind
/// `compensating_write`, and of level `error` (or kind `error`), reading at most ``maxLogRecords`` of them.
struct AdminStatsRoute: Sendable {
    let application: OutpostServerApplication

    static let maxLogRecords = 10_000

    @Sendable func stats(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let storage = application.storage
        let appId = application.app.appId
        let now = application.auth.clock()
        var collections: [JSONValue] = []
        for name in try await storage.collections(appId: appId).sorted() {
            let count = try await storage.documentCount(appId: appId, collection: name)
            collections.append(.object(["name": .string(name), "documents": .int(Int64(count))]))
        }
        let users = try await storage.users(appId: appId).count
        let connections = (application.syncHandler as? SyncEngine)?.activeConnections ?? 0
        let recent = try await storage.logs(
            appId: appId, kind: nil, since: now.addingTimeInterval(-3600), until: now, limit: Self.maxLogRecords)
        let compensatingWrites = recent.filter { $0.kind == "compensating_write" }.count
        let errors = recent.filter { $0.level == "error" || $0.kind == "error" }.count
        let hour = now.millisecondsSince1970 / 3_600_000
        let first = hour - 23
        let counts = try await storage.auditEventsIngestedPerHour(
            appId: appId, since: Date(timeIntervalSince1970: Double(first) * 3600))
        let buckets: [JSONValue] = (first...hour).map { h in
            .object([
                "hour": .string(AuditEventFormat.iso8601(milliseconds: h * 3_600_000)),
                "count": .int(Int64(counts[h] ?? 0)),
            ])
        }
        return .json(.object([
            "users": .int(Int64(users)), "collections": .array(collections), "connections": .int(Int64(connections)),
            "last_hour": .object(["compensating_writes": .int(Int64(compensatingWrites)), "errors": .int(Int64(errors))]),
            "events_per_hour": .array(buckets),
        ]))
    }
}
