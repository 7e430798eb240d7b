import Hummingbird
import OutpostCore

extension ClientAPIRoutes {
    /// API key routes take the user's refresh token as App Services does, or an access token.
    private func user(_ request: Request) async throws -> StoredUser {
        try await auth.user(accessOrRefreshToken: request.bearerToken())
    }

    private static func json(_ key: StoredAPIKey) -> JSONValue {
        .object(["_id": .string(key.id), "name": .string(key.name), "disabled": .bool(key.disabled)])
    }

    @Sendable func createAPIKey(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        let user = try await user(request)
        var request = request
        let body = try await request.jsonObject(context: context)
        let name = try body.string("name")
        guard !name.isEmpty else { throw APIError.badRequest("field 'name' must not be empty") }
        let (stored, key) = try await auth.createAPIKey(userId: user.id, name: name)
        return .json(
            .object([
                "_id": .string(stored.id), "key": .string(key), "name": .string(stored.name),
                "disabled": .bool(stored.disabled),
            ]), status: .created)
    }

    @Sendable func listAPIKeys(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        let user = try await user(request)
        return .json(.array(try await auth.apiKeys(userId: user.id).map(Self.json)))
    }

    @Sendable func getAPIKey(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        let user = try await user(request)
        let id = context.parameters.get("keyId") ?? ""
        try JSONBody.checkText(id, what: "the API key id")
        guard let key = try await auth.apiKeys(userId: user.id).first(where: { $0.id == id }) else {
            throw APIError.notFound("no API key with id '\(id)'")
        }
        return .json(Self.json(key))
    }

    @Sendable func deleteAPIKey(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        let user = try await user(request)
        let id = context.parameters.get("keyId") ?? ""
        try JSONBody.checkText(id, what: "the API key id")
        guard try await auth.deleteAPIKey(userId: user.id, id: id) else {
            throw APIError.notFound("no API key with id '\(id)'")
        }
        return Response(status: .noContent)
    }

    @Sendable func enableAPIKey(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try await setAPIKey(request, context: context, disabled: false)
    }

    @Sendable func disableAPIKey(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try await setAPIKey(request, context: context, disabled: true)
    }

    /// `PUT …/auth/api_keys/{id}/enable` and `…/disable`: 204, or 404 when the caller has no key with that id.
    private func setAPIKey(_ request: Request, context: OutpostRequestContext, disabled: Bool) async throws -> Response {
        try checkApp(context)
        let user = try await user(request)
        let id = context.parameters.get("keyId") ?? ""
        try JSONBody.checkText(id, what: "the API key id")
        guard try await auth.setAPIKey(userId: user.id, id: id, disabled: disabled) else {
            throw APIError.notFound("no API key with id '\(id)'")
        }
        return Response(status: .noContent)
    }
}
