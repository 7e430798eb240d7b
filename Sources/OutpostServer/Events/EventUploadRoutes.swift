import Foundation
import Hummingbird
import OutpostCore

/// Outpost-only: where the event library's stores upload their events,
/// `POST /api/client/v2.0/app/{appId}/events` (see `docs/events.md`, "Upload protocol").
///
/// The body is `{"partition": "<prefix>-<ObjectId>", "events": [<AuditEvent documents in Extended JSON>]}`,
/// authenticated by the uploading user's access token. Every event is checked before anything is written; the
/// new ones are inserted into the `AuditEvent` collection in one transaction, and events whose `_id` is already
/// stored are skipped, so uploading the same events again is harmless. The answer is
/// `{"received": <n>, "inserted": <k>}`.
struct EventUploadRoutes: Sendable {
    let application: OutpostServerApplication
    /// The app's sync settings (schema, development mode, partition key), or why they do not parse.
    let settings: Result<SyncAppSettings, any Error>

    /// The largest request body accepted: a batch of events; the client keeps batches far below it.
    static let maxBodySize = 32 * 1024 * 1024

    init(application: OutpostServerApplication) {
        self.application = application
        self.settings = Result { try SyncAppSettings(app: application.app) }
    }

    func register(on router: Router<OutpostRequestContext>) {
        router.group(RouterPath(ClientAPIRoutes.basePath)).post("events", use: handle)
    }

    @Sendable func handle(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let appId = context.parameters.get("appId") ?? ""
        guard appId == application.app.appId else { throw APIError.appNotFound(appId) }
        // Any logged-in user of the app may upload events; the audit index records who did.
        let user = try await application.auth.authenticate(accessToken: request.bearerToken())
        let settings: SyncAppSettings
        switch self.settings {
        case .success(let parsed): settings = parsed
        case .failure(let error):
            throw APIError(status: .internalServerError, errorCode: "InternalServerError", code: "invalidConfiguration",
                           message: "the app's sync settings are invalid: \(error)")
        }
        var request = request
        let buffer = try await request.body(upTo: Self.maxBodySize)
        let batch = try Self.batch(Array(buffer.readableBytesView), settings: settings)
        let ingest = EventIngest(
            storage: application.storage, settings: settings, engine: application.syncHandler as? SyncEngine,
            extractor: AuditExtractor(app: application.app), now: application.auth.clock)
        let inserted = try await ingest.insert(batch, uploader: user.userId)
        return .json(.object(["received": .int(Int64(batch.documents.count)), "inserted": .int(Int64(inserted))]))
    }

    /// The checked batch of a body: read directly when it has the usual shape (``EventBatchReader``), otherwise
    /// through `JSONValue`, which names the first wrong value.
    static func batch(_ bytes: [UInt8], settings: SyncAppSettings) throws(APIError) -> EventBatch {
        if let batch = EventBatchReader.read(bytes, settings: settings) { return batch }
        var reader = JSONReader(bytes: bytes)
        let parsed = reader.parseValue()
        reader.skipSpace()
        guard reader.index == reader.bytes.count, case .object(let body)? = parsed else {
            throw APIError.badRequest("the body must be a JSON object {\"partition\": …, \"events\": […]}")
        }
        return try EventBatch(body: body, settings: settings)
    }
}
