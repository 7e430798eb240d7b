import Foundation
import Hummingbird
import OutpostCore

/// The Data API in App Services' shape: `POST /api/client/v2.0/app/{appId}/data/{collection}/{action}` with a
/// JSON body of Extended JSON values, authenticated by the user's access token (see `docs/data-api.md`).
struct DataAPIRoutes: Sendable {
    let application: OutpostServerApplication
    /// The app's rules, or why they do not parse.
    let rules: Result<RuleSet, RuleError>

    init(application: OutpostServerApplication) {
        self.application = application
        let app = application.app
        self.rules = Result { () throws(RuleError) -> RuleSet in
            try RuleSet.parse(rules: .object(app.rules), defaultRule: app.defaultRule)
        }
    }

    func register(on router: Router<OutpostRequestContext>) {
        router.group(RouterPath(ClientAPIRoutes.basePath)).post("data/:collection/:action", use: handle)
    }

    @Sendable func handle(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let appId = context.parameters.get("appId") ?? ""
        guard appId == application.app.appId else { throw APIError.appNotFound(appId) }
        guard application.app.dataAPI.enabled else {
            throw APIError(
                status: .notFound, errorCode: "DataAPIDisabled", code: "dataAPIDisabled",
                message: "the Data API is not enabled for app '\(appId)'; set \"data_api\": {\"enabled\": true} in "
                    + "the app configuration")
        }
        let user = try await application.auth.authenticate(accessToken: request.bearerToken())
        let rawCollection = context.parameters.get("collection") ?? ""
        let collection = rawCollection.removingPercentEncoding ?? rawCollection
        try DataAPIValidation.checkCollection(collection)
        let action = context.parameters.get("action") ?? ""
        var request = request
        let body = try await request.jsonObject(context: context)
        let rules: RuleSet
        switch self.rules {
        case .success(let parsed): rules = parsed
        case .failure(let error):
            throw APIError(
                status: .internalServerError, errorCode: "InternalServerError", code: "invalidRules",
                message: "the app's rules are invalid: \(error.message)")
        }
        var service = DataAPIService(
            storage: application.storage, appId: appId, rules: rules, engine: application.syncHandler as? SyncEngine)
        service.limits = application.app.dataAPI
        service.values = application.app.functions.ruleValues
        if rules.callsFunctions, let runtime = application.functionRuntime {
            service.ruleFunctions = FunctionService(application: application, runtime: runtime).ruleFunctions(for: user)
        }
        let result = try await service.perform(action: action, collection: collection, body: body.fields, user: user)
        return .json(result, status: action.hasPrefix("insert") ? .created : .ok)
    }
}
