import Foundation
import Hummingbird
import NIOCore
import OutpostCore

/// `GET audit/export?format=jsonl|csv&<the search's filters>` (admin key; Outpost-only): every matching audit event,
/// newest first, streamed as it is read.
///
/// The body is written page by page (``pageSize`` events read from storage, written, then the next page after the
/// last one's cursor), so an export of millions of events holds one page at a time, and a slow reader holds the
/// export back instead of the server buffering it (the writer waits for the connection).
/// - `jsonl` (`application/x-ndjson`): one `AuditEvent` document per line, its Extended JSON exactly as stored — the
///   text the audit chain's digests are taken of, so `sha256sum` of a line gives its digest.
/// - `csv` (`text/csv`): the header `id,timestamp,activity,type,user,objects,data`, then a row per event
///   (``AuditEventFormat/csvRow(_:)``). A stored document that is gone is written from its index row (jsonl: an
///   object with the index's fields).
struct AdminAuditExport: Sendable {
    let application: OutpostServerApplication

    static let pageSize = 500

    enum Format: String {
        case jsonl, csv
    }

    @Sendable func export(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let parameters = try AuditSearchParameters(request)
        let formatText = request.uri.queryParameters.get("format") ?? Format.jsonl.rawValue
        guard let format = Format(rawValue: formatText) else {
            throw APIError.badRequest("'format' must be jsonl or csv")
        }
        let storage = application.storage
        let appId = application.app.appId
        let writer = AuditEventFormat(partitionKey: application.app.sync.partition?.key)
        let body = ResponseBody { bodyWriter in
            var search = parameters.search
            if format == .csv { try await bodyWriter.write(ByteBuffer(string: AuditEventFormat.csvHeader)) }
            while true {
                let page = try await storage.auditEvents(appId: appId, matching: search, limit: Self.pageSize)
                var buffer = ByteBuffer()
                for record in page {
                    switch format {
                    case .jsonl:
                        buffer.writeString(record.text ?? writer.json(record).text)
                        buffer.writeString("\n")
                    case .csv:
                        buffer.writeString(writer.csvRow(record))
                    }
                }
                if buffer.readableBytes > 0 { try await bodyWriter.write(buffer) }
                guard page.count == Self.pageSize, let last = page.last else { break }
                search.after = AuditSearch.Cursor(last.entry)
            }
            try await bodyWriter.finish(nil)
        }
        let contentType = format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson"
        return Response(
            status: .ok,
            headers: [
                .contentType: contentType,
                .contentDisposition: "attachment; filename=\"audit-\(appId).\(format.rawValue)\"",
            ],
            body: body)
    }
}
