import Hummingbird
import OutpostCore

/// The client API in App Services' shape under `/api/client/v2.0/app/{appId}/`: auth providers, sessions, the
/// profile, API keys and the location endpoint.
struct ClientAPIRoutes {
    /// The path every client API route lives under (`:appId` is the app id).
    static let basePath = "api/client/v2.0/app/:appId"

    let auth: AuthService

    func register(on router: Router<OutpostRequestContext>) {
        let group = router.group(RouterPath(Self.basePath))
        group.get("location", use: location)
        group.post("auth/providers/local-userpass/register", use: registerUser)
        group.post("auth/providers/local-userpass/confirm", use: confirmUser)
        group.post("auth/providers/local-userpass/confirm/send", use: resendConfirmation)
        group.post("auth/providers/local-userpass/confirm/call", use: callConfirmationFunction)
        group.post("auth/providers/local-userpass/reset/send", use: sendPasswordReset)
        group.post("auth/providers/local-userpass/reset", use: resetPassword)
        group.post("auth/providers/local-userpass/reset/call", use: callResetFunction)
        group.post("auth/providers/:provider/login", use: login)
        group.post("auth/session", use: refreshSession)
        group.delete("auth/session", use: deleteSession)
        group.get("auth/profile", use: profile)
        group.post("auth/api_keys", use: createAPIKey)
        group.get("auth/api_keys", use: listAPIKeys)
        group.get("auth/api_keys/:keyId", use: getAPIKey)
        group.delete("auth/api_keys/:keyId", use: deleteAPIKey)
        group.put("auth/api_keys/:keyId/enable", use: enableAPIKey)
        group.put("auth/api_keys/:keyId/disable", use: disableAPIKey)
    }

    /// Throws 404 unless the path names this server's app.
    func checkApp(_ context: OutpostRequestContext) throws(APIError) {
        let appId = context.parameters.get("appId") ?? ""
        guard appId == auth.app.appId else { throw APIError.appNotFound(appId) }
    }

    @Sendable func location(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        let host = request.head.authority ?? "127.0.0.1"
        return .json(
            .object([
                "deployment_model": .string("LOCAL"), "location": .string("self-hosted"),
                "hostname": .string("http://\(host)"), "ws_hostname": .string("ws://\(host)"),
            ]))
    }

    @Sendable func registerUser(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        var request = request
        let body = try await request.jsonObject(context: context)
        try await auth.register(
            email: body.string("email"), password: body.string("password"), clientAddress: context.clientAddress)
        return .json(.object([:]), status: .created)
    }

    @Sendable func confirmUser(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        var request = request
        let body = try await request.jsonObject(context: context)
        try await auth.confirm(token: body.string("token"), tokenId: body.string("tokenId"))
        return .json(.object([:]))
    }

    @Sendable func resendConfirmation(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        var request = request
        let body = try await request.jsonObject(context: context)
        try await auth.resendConfirmation(email: body.string("email"), clientAddress: context.clientAddress)
        return .json(.object([:]))
    }

    @Sendable func sendPasswordReset(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        var request = request
        let body = try await request.jsonObject(context: context)
        try await auth.sendPasswordReset(email: body.string("email"), clientAddress: context.clientAddress)
        return .json(.object([:]))
    }

    @Sendable func resetPassword(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        var request = request
        let body = try await request.jsonObject(context: context)
        try await auth.resetPassword(
            token: body.string("token"), tokenId: body.string("tokenId"), password: body.string("password"))
        return .json(.object([:]))
    }

    @Sendable func callConfirmationFunction(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        try auth.callFunction("custom confirmation")
    }

    @Sendable func callResetFunction(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        try auth.callFunction("password reset")
    }

    @Sendable func login(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        var request = request
        let body = try await request.jsonObject(context: context)
        let provider = context.parameters.get("provider") ?? ""
        // `?link=true` with the user's access token: the credentials' identity joins that user (linkUser).
        let owner = request.uri.queryParameters.get("link") == "true"
            ? try await auth.authenticate(accessToken: request.bearerToken()).userId : nil
        let result: AuthService.LoginResult
        switch provider {
        case AuthService.Provider.anonymous:
            result = try await auth.loginAnonymous(clientAddress: context.clientAddress, linking: owner)
        case AuthService.Provider.emailPassword:
            result = try await auth.loginEmailPassword(
                email: body.string("username"), password: body.string("password"), clientAddress: context.clientAddress,
                linking: owner)
        case AuthService.Provider.apiKey:
            result = try await auth.loginAPIKey(body.string("key"), clientAddress: context.clientAddress, linking: owner)
        case AuthService.Provider.customToken:
            do {
                result = try await auth.loginCustomToken(body.string("token"), linking: owner)
            } catch let error as AuthError where [.invalidToken, .invalidSignature, .expiredToken].contains(error.code) {
                // A refused login token is an auth failure (App Services' `AuthError`), not an invalid session.
                throw APIError(status: .unauthorized, errorCode: "AuthError", code: error.code.rawValue, message: error.message)
            }
        default:
            throw APIError(
                status: .notFound, errorCode: "AuthProviderNotFound", code: "providerNotFound",
                message: "unknown auth provider '\(provider)'")
        }
        ServerMetrics.login(provider: provider)
        if owner != nil {
            return .json(.object(["access_token": .string(result.accessToken), "user_id": .string(result.userId)]))
        }
        return .json(
            .object([
                "access_token": .string(result.accessToken), "refresh_token": .string(result.refreshToken),
                "user_id": .string(result.userId), "device_id": .string(result.deviceId),
            ]))
    }

    @Sendable func refreshSession(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        let token = try await auth.refreshAccessToken(refreshToken: request.bearerToken())
        return .json(.object(["access_token": .string(token)]), status: .created)
    }

    @Sendable func deleteSession(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        try await auth.logout(refreshToken: request.bearerToken())
        return Response(status: .noContent)
    }

    @Sendable func profile(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        try checkApp(context)
        let user = try await auth.authenticate(accessToken: request.bearerToken())
        guard let stored = try await auth.storage.user(appId: auth.app.appId, id: user.userId) else {
            throw AuthError(.userNotFound, "the token's user does not exist")
        }
        return .json(
            .object([
                "user_id": .string(stored.id),
                "identities": .array(
                    [.object(["id": .string(stored.identity), "provider_type": .string(stored.provider)])]
                        + (stored.linkedIdentities ?? []).map {
                            .object(["id": .string($0.identity), "provider_type": .string($0.provider)])
                        }),
                "data": stored.data.extendedJSON,
                "custom_data": stored.customData.extendedJSON,
            ]))
    }
}
