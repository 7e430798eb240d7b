import Foundation
import Hummingbird
import OutpostCore

/// The admin API under `/api/admin/v1/`, authenticated by the header `X-Admin-Key: <admin key>` (compared in
/// constant time; 403 otherwise): users, collections and their documents, live sync sessions, the server log, the
/// overview's figures (``AdminStatsRoute``) and the audit index (``AdminAuditRoutes``).
struct AdminRoutes: Sendable {
    static let basePath = "api/admin/v1"
    static let keyHeaderName = "X-Admin-Key"

    let application: OutpostServerApplication

    func register(on router: Router<OutpostRequestContext>) {
        let group = router.group(RouterPath(Self.basePath))
        group.get("app", use: guarded(appSummary))
        group.get("users", use: guarded(users))
        group.delete("users/:id", use: guarded(deleteUser))
        group.put("users/:id/disable", use: guarded(disableUser))
        group.put("users/:id/enable", use: guarded(enableUser))
        group.get("collections", use: guarded(collections))
        group.get("collections/:name/documents", use: guarded(documents))
        group.post("collections/:name/import", use: guarded(AdminImportRoute(application: application).importDocuments))
        let export = AdminExportRoute(application: application)
        group.get("collections/:name/export", use: guarded(export.page))
        group.get("collections/:name/changes", use: guarded(export.changes))
        group.get("sessions", use: guarded(sessions))
        group.get("logs", use: guarded(logs))
        group.get("stats", use: guarded(AdminStatsRoute(application: application).stats))
        AdminAuditRoutes(application: application).register(on: group, self)
        AdminFunctionRoutes(application: application).register(on: group, guarded: self)
    }

    /// Whether two strings are equal, in time that depends only on their lengths.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: x.count ^ y.count)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0 && x.count == y.count
    }

    func guarded(_ handler: @escaping @Sendable (Request, OutpostRequestContext) async throws -> Response)
        -> @Sendable (Request, OutpostRequestContext) async throws -> Response
    {
        let key = application.adminKey
        return { request, context in
            guard let given = request.headers[.init(Self.keyHeaderName)!], !key.isEmpty, Self.constantTimeEquals(given, key) else {
                throw APIError(
                    status: .forbidden, errorCode: "Forbidden", code: "adminKeyRequired",
                    message: request.headers[.init(Self.keyHeaderName)!] == nil
                        ? "missing 'X-Admin-Key' header" : "the 'X-Admin-Key' header does not hold the admin key")
            }
            return try await handler(request, context)
        }
    }

    var appId: String { application.app.appId }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func parseDate(_ text: String, _ name: String) throws(APIError) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        throw APIError.badRequest("'\(name)' must be an ISO 8601 time such as 2024-05-01T12:00:00Z, not '\(text)'")
    }

    static func limit(_ request: Request, default value: Int, max: Int) throws(APIError) -> Int {
        guard let text = request.uri.queryParameters.get("limit") else { return value }
        guard let n = Int(text), n > 0 else { throw APIError.badRequest("'limit' must be a positive integer") }
        return min(n, max)
    }

    /// What the admin console's overview shows: the app's id and name, its sync mode, its enabled auth providers,
    /// the collections of its schema and whether development mode is on. No keys or secrets.
    @Sendable func appSummary(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let app = application.app
        var providers: [JSONValue] = []
        if app.auth.anonymousEnabled { providers.append(.string(AuthService.Provider.anonymous)) }
        if app.auth.emailPasswordEnabled { providers.append(.string(AuthService.Provider.emailPassword)) }
        if app.auth.apiKeysEnabled { providers.append(.string(AuthService.Provider.apiKey)) }
        if app.auth.customToken != nil { providers.append(.string(AuthService.Provider.customToken)) }
        var sync: [String: JSONValue] = [
            "mode": .string(app.sync.mode.rawValue), "development_mode": .bool(app.sync.developmentModeEnabled),
        ]
        if let partition = app.sync.partition { sync["partition_key"] = .string(partition.key) }
        return .json(.object([
            "app_id": .string(app.appId), "name": .string(app.name), "sync": .object(sync),
            "auth_providers": .array(providers), "schema": .array(app.schemaCollectionNames.map(JSONValue.string)),
            "data_api": .bool(app.dataAPI.enabled),
        ]))
    }

    @Sendable func users(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let users = try await application.storage.users(appId: appId).sorted { $0.createdAt < $1.createdAt }
        return .json(.object(["users": .array(users.map { user in
            .object([
                "id": .string(user.id), "provider": .string(user.provider), "identity": .string(user.identity),
                "confirmed": .bool(user.confirmed), "disabled": .bool(user.disabled),
                "created_at": .string(Self.iso8601(user.createdAt)),
                "data": user.data.extendedJSON, "custom_data": user.customData.extendedJSON,
                "linked_to": user.linkedTo.map(JSONValue.string) ?? .null,
            ])
        })]))
    }

    @Sendable func deleteUser(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        try JSONBody.checkText(id, what: "the user id")
        // The identities linked to the user go with it (their email may then register again).
        for linked in try await application.storage.user(appId: appId, id: id)?.linkedIdentities ?? [] {
            try await application.storage.deleteUser(appId: appId, id: linked.rowId)
        }
        guard try await application.storage.deleteUser(appId: appId, id: id) else {
            throw APIError.notFound("no user with id \(DataAPIValidation.quoted(id))")
        }
        try? await application.storage.appendLog(
            LogRecord(appId: appId, kind: "admin", level: "info", message: "deleted user \(id)"))
        await closeSyncConnections(of: id, "the user was deleted")
        return Response(status: .noContent)
    }

    /// `PUT users/{id}/disable`: the user's tokens stop working (access and refresh) and their sync connections are
    /// closed, until `enable`; nothing of theirs is deleted. As App Services' admin API, 204.
    @Sendable func disableUser(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try await setDisabled(true, context)
    }

    /// `PUT users/{id}/enable`: a disabled user's tokens work again. 204.
    @Sendable func enableUser(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try await setDisabled(false, context)
    }

    private func setDisabled(_ disabled: Bool, _ context: OutpostRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        try JSONBody.checkText(id, what: "the user id")
        guard var user = try await application.storage.user(appId: appId, id: id) else {
            throw APIError.notFound("no user with id \(DataAPIValidation.quoted(id))")
        }
        if user.disabled != disabled {
            user.disabled = disabled
            try await application.storage.updateUser(user)
            try? await application.storage.appendLog(LogRecord(
                appId: appId, kind: "admin", level: "info", message: "\(disabled ? "disabled" : "enabled") user \(id)"))
        }
        if disabled { await closeSyncConnections(of: id, "the user was disabled") }
        return Response(status: .noContent)
    }

    private func closeSyncConnections(of userId: String, _ reason: String) async {
        guard let engine = application.syncHandler as? SyncEngine else { return }
        await engine.closeConnections(appId: appId, userId: userId, reason: reason)
    }

    @Sendable func collections(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        var items: [JSONValue] = []
        for name in try await application.storage.collections(appId: appId).sorted() {
            let count = try await application.storage.documentCount(appId: appId, collection: name)
            items.append(.object(["name": .string(name), "count": .int(Int64(count))]))
        }
        return .json(.object(["collections": .array(items)]))
    }

    /// The `:name` of a `collections/:name/…` path, checked as the Data API checks collection names.
    static func collectionName(_ context: OutpostRequestContext) throws -> String {
        let raw = context.parameters.get("name") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        try DataAPIValidation.checkCollection(name)
        return name
    }

    @Sendable func documents(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let name = try Self.collectionName(context)
        let limit = try Self.limit(request, default: 100, max: 10_000)
        // One page and a count: the collection is never in memory at once.
        let page = try await application.storage.documentTexts(appId: appId, collection: name, after: nil, limit: limit)
        let total = try await application.storage.documentCount(appId: appId, collection: name)
        let body = "{\"total\":\(total),\"documents\":[" + page.map(\.text).joined(separator: ",") + "]}"
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    @Sendable func sessions(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let engine = application.syncHandler as? SyncEngine
        let users = engine?.connectedUsers(appId: appId) ?? []
        return .json(.object([
            "activeConnections": .int(Int64(engine?.activeConnections ?? 0)),
            "syncEngine": .bool(engine != nil),
            "users": .array(users.map { .object(["user_id": .string($0.userId), "connections": .int(Int64($0.connections))]) }),
        ]))
    }

    @Sendable func logs(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let kind = query.get("kind").flatMap { $0.isEmpty ? nil : $0 }
        if let kind { try JSONBody.checkText(kind, what: "the query parameter 'kind'") }
        let since = try query.get("since").map { text throws(APIError) in try Self.parseDate(text, "since") }
        let until = try query.get("until").map { text throws(APIError) in try Self.parseDate(text, "until") }
        let limit = try Self.limit(request, default: 100, max: 10_000)
        let records = try await application.storage.logs(appId: appId, kind: kind, since: since, until: until, limit: limit)
        return .json(.object(["logs": .array(records.map { record in
            var fields: [String: JSONValue] = [
                "time": .string(Self.iso8601(record.time)), "kind": .string(record.kind),
                "level": .string(record.level), "message": .string(record.message),
            ]
            if let details = record.details { fields["details"] = details.extendedJSON }
            return .object(fields)
        })]))
    }
}
