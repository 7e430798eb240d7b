import Foundation
import Hummingbird
import OutpostCore

/// `POST /api/client/v2.0/app/{appId}/functions/call` with `{"name": …, "arguments": [Extended JSON…]}`, as Realm's
/// `user.functions.<name>(…)` sends it, authenticated by the user's access token; the answer is the function's
/// result in canonical Extended JSON.
struct FunctionRoutes: Sendable {
    let application: OutpostServerApplication

    func register(on router: Router<OutpostRequestContext>) {
        router.group(RouterPath(ClientAPIRoutes.basePath)).post("functions/call", use: handle)
    }

    @Sendable func handle(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let appId = context.parameters.get("appId") ?? ""
        guard appId == application.app.appId else { throw APIError.appNotFound(appId) }
        let user = try await application.auth.authenticate(accessToken: request.bearerToken())
        var request = request
        let body = try await request.jsonObject(context: context)
        let (name, arguments) = try Self.parse(body.fields)
        guard let runtime = application.functionRuntime else {
            throw FunctionCallError(.notFound, "function not found: '\(name)'").apiError
        }
        let result = try await FunctionService(application: application, runtime: runtime)
            .callFromClient(name: name, arguments: arguments, user: user)
        return .json(result)
    }

    /// The call's name and arguments.
    static func parse(_ fields: [String: JSONValue]) throws(APIError) -> (String, [JSONValue]) {
        for key in fields.keys.sorted() where !["name", "arguments", "service"].contains(key) {
            throw APIError.badRequest("unknown field '\(key)' in a function call (expected 'name' and 'arguments')")
        }
        if case .string(let service)? = fields["service"] {
            throw APIError.badRequest("calls to service \"\(service)\" are not supported: Outpost's MongoClient uses the "
                + "Data API; functions are called without 'service'")
        }
        guard case .string(let name)? = fields["name"], !name.isEmpty else {
            throw APIError.badRequest("'name' must be the function's name (a non-empty string)")
        }
        var arguments: [JSONValue] = []
        switch fields["arguments"] {
        case nil, .null?: break
        case .array(let items)?: arguments = items
        default: throw APIError.badRequest("'arguments' must be an array of Extended JSON values")
        }
        guard arguments.count <= FunctionService.maxArguments else {
            throw APIError.badRequest("a function call may pass at most \(FunctionService.maxArguments) arguments, not "
                + "\(arguments.count)")
        }
        return (name, arguments)
    }
}
