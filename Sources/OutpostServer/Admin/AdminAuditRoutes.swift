import Foundation
import Hummingbird
import NIOCore
import OutpostCore

/// The admin API's audit routes (admin key; Outpost-only), over the audit index of the app's `AuditEvent` collection
/// (``AuditStorage``):
/// - `GET audit/events?user=&activity=&type=&since=&until=&class=&pk=&cursor=&limit=`: a page of matching events,
///   newest first, with the total and the cursor of the next page;
/// - `GET audit/export?format=jsonl|csv&…`: every matching event, streamed (``AdminAuditExport``);
/// - `GET audit/verify`: the audit chain checked (``AuditChainVerifier``).
///
/// The answers are described in docs/events.md ("Audit API").
struct AdminAuditRoutes: Sendable {
    let application: OutpostServerApplication

    var appId: String { application.app.appId }
    var format: AuditEventFormat { AuditEventFormat(partitionKey: application.app.sync.partition?.key) }

    func register(on group: RouterGroup<OutpostRequestContext>, _ guarded: AdminRoutes) {
        group.get("audit/events", use: guarded.guarded(search))
        group.get("audit/export", use: guarded.guarded(AdminAuditExport(application: application).export))
        group.get("audit/verify", use: guarded.guarded(verify))
    }

    /// `{"events": […], "total": n, "next_cursor": "…" | null}`: `next_cursor` is set when the page is full (a next
    /// page may hold more), and continues after the page's last event.
    @Sendable func search(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let parameters = try AuditSearchParameters(request)
        let storage = application.storage
        let page = try await storage.auditEvents(appId: appId, matching: parameters.search, limit: parameters.limit)
        let total = try await storage.auditEventCount(appId: appId, matching: parameters.search)
        let next: JSONValue = page.count == parameters.limit
            ? page.last.map { .string(AuditSearchParameters.cursorText(AuditSearch.Cursor($0.entry))) } ?? .null : .null
        return .json(.object([
            "events": .array(page.map(format.json)), "total": .int(Int64(total)), "next_cursor": next,
        ]))
    }

    /// `{"ok": true, "batches": n, "events": m, "head": "<hash>"}`, or with `"ok": false` and
    /// `"first_mismatch": {"batch": <sequence>, "ingested_at": "…", "reason": "…"}`.
    @Sendable func verify(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let report = try await AuditChainVerifier(storage: application.storage, appId: appId).verify()
        var fields: [String: JSONValue] = [
            "ok": .bool(report.ok), "batches": .int(Int64(report.batches)), "events": .int(Int64(report.events)),
            "head": .string(report.headHash),
        ]
        if let mismatch = report.firstMismatch {
            fields["first_mismatch"] = .object([
                "batch": .int(mismatch.sequence),
                "ingested_at": .string(AuditEventFormat.iso8601(milliseconds: mismatch.ingestedAt.millisecondsSince1970)),
                "reason": .string(mismatch.reason),
            ])
            fields["head"] = nil
        }
        return .json(.object(fields))
    }
}
