import Foundation
import Hummingbird
import OutpostCore

/// The admin API's functions: `GET functions` lists them with the runtime's state, `POST functions/:name/run` runs
/// one as a chosen user (or as the system user) with given arguments and answers its result, error, logs and time.
struct AdminFunctionRoutes: Sendable {
    let application: OutpostServerApplication

    func register(on group: RouterGroup<OutpostRequestContext>, guarded: AdminRoutes) {
        group.get("functions", use: guarded.guarded(list))
        group.post("functions/:name/run", use: guarded.guarded(run))
    }

    @Sendable func list(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let functions = application.app.functions.definitions.map { definition -> JSONValue in
            .object([
                "name": .string(definition.name), "private": .bool(definition.isPrivate),
                "run_as_system": .bool(definition.runAsSystem), "can_evaluate": definition.canEvaluate ?? .null,
                "source": .string(definition.source),
            ])
        }
        var runtime: [String: JSONValue] = ["available": .bool(false), "node": .null, "workers": .int(0)]
        if let functionRuntime = application.functionRuntime {
            let status = await functionRuntime.status
            runtime = [
                "available": .bool(status.available), "node": status.node.map(JSONValue.string) ?? .null,
                "workers": .int(Int64(status.workers)), "busy_workers": .int(Int64(status.busyWorkers)),
                "queued_calls": .int(Int64(status.queuedCalls)),
                "problem": status.problem.map(JSONValue.string) ?? .null,
            ]
        }
        return .json(.object(["functions": .array(functions), "runtime": .object(runtime)]))
    }

    @Sendable func run(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let name = context.parameters.get("name")?.removingPercentEncoding ?? ""
        guard let runtime = application.functionRuntime,
            let definition = application.app.functions.definition(named: name)
        else { throw APIError.notFound("function not found: '\(name)'") }
        var request = request
        let body = try await request.jsonObject(context: context)
        for key in body.fields.keys.sorted() where key != "user_id" && key != "arguments" {
            throw APIError.badRequest("unknown field '\(key)' (expected 'user_id' and 'arguments')")
        }
        var user: AuthenticatedUser?
        switch body.fields["user_id"] {
        case nil, .null?: user = nil
        case .string(let id)? where id.isEmpty: user = nil
        case .string(let id)?:
            guard let stored = try await application.storage.user(appId: application.app.appId, id: id) else {
                throw APIError.notFound("no user with id '\(id)'")
            }
            user = AuthenticatedUser(appId: application.app.appId, userId: stored.id, data: stored.data,
                                     customData: stored.customData)
        default:
            throw APIError.badRequest("'user_id' must be a user's id, or null to run as the system user")
        }
        let (_, arguments) = try FunctionRoutes.parse(["name": .string(name), "arguments": body.fields["arguments"] ?? .null])
        let outcome = await FunctionService(application: application, runtime: runtime)
            .run(definition, arguments: arguments, user: user)
        var answer: [String: JSONValue] = [
            "logs": .array(outcome.logs.map { .object(["level": .string($0.level), "message": .string($0.message)]) }),
            "duration_ms": .double(Double(outcome.duration.components.seconds) * 1e3
                + Double(outcome.duration.components.attoseconds) / 1e15),
            "result": .null, "error": .null,
        ]
        switch outcome.result {
        case .success(let value): answer["result"] = value
        case .failure(let error):
            answer["error"] = .object(["error": .string(error.message), "error_code": .string(error.errorCode)])
        }
        return .json(.object(answer))
    }
}
