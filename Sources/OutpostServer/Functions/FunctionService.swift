import Foundation
import OutpostCore

/// Calls an app's functions for clients and for the admin console: checks who may call what, hands the call to
/// the ``FunctionRuntime``, runs the function's `context.services` operations through the Data API's engine (with
/// the caller's rules, or none for `run_as_system`), and writes each call to the server log (kind `function`).
struct FunctionService: Sendable {
    let application: OutpostServerApplication
    let runtime: FunctionRuntime

    /// The most arguments one call may pass.
    static let maxArguments = 1_000

    var functions: AppDefinition.Functions { application.app.functions }

    /// A client's call (`POST …/functions/call`): private functions and those whose `can_evaluate` refuses the
    /// user are not callable.
    func callFromClient(name: String, arguments: [JSONValue], user: AuthenticatedUser) async throws -> JSONValue {
        guard let definition = functions.definition(named: name) else {
            throw FunctionCallError(.notFound, "function not found: '\(name)'").apiError
        }
        guard !definition.isPrivate else {
            throw FunctionCallError(.notCallable, "function '\(name)' is private: only other functions and the admin "
                + "console can run it").apiError
        }
        if let canEvaluate = definition.canEvaluate {
            let expression = try? RuleExpression.parse(canEvaluate, path: "can_evaluate")
            guard let expression, expression.evaluate(context: ruleContext(user)) else {
                throw FunctionCallError(.notCallable, "rule not matched for function '\(name)': its can_evaluate "
                    + "expression refuses user \(user.userId)").apiError
            }
        }
        let outcome = await run(definition, arguments: arguments, user: user)
        switch outcome.result {
        case .success(let value): return value
        case .failure(let error): throw error.apiError
        }
    }

    /// Runs a function as `user`, or as the system user (no rules) when nil; logs it. Private functions included.
    func run(_ definition: AppDefinition.FunctionDefinition, arguments: [JSONValue], user: AuthenticatedUser?) async
        -> FunctionRuntime.Outcome
    {
        let asSystem = user == nil || definition.runAsSystem
        let userJSON = await Self.userJSON(user, storage: application.storage)
        let services = servicesHandler(user: user)
        let outcome = await runtime.call(
            name: definition.name, arguments: arguments, user: userJSON, runAsSystem: asSystem, remoteAddress: nil,
            services: services)
        await log(definition.name, user: user, outcome: outcome)
        return outcome
    }

    /// Runs the `%function` calls of the Data API's rules: as the requesting user (`context.user`), with
    /// `context.services` unrestricted (rules inside would call functions again). Private functions may be called;
    /// a call that fails, or a function that does not exist, gives no value (the condition is false) and is logged.
    func ruleFunctions(for user: AuthenticatedUser) -> @Sendable (RuleFunctionCall) async -> Value? {
        let service = self
        return { call in
            guard let definition = service.functions.definition(named: call.name) else {
                try? await service.application.storage.appendLog(LogRecord(
                    appId: service.application.app.appId, kind: "function", level: "error",
                    message: "a rule calls function '\(call.name)', which does not exist; the condition is false"))
                return nil
            }
            var system = definition
            system.runAsSystem = true
            let outcome = await service.run(system, arguments: call.arguments.map(\.extendedJSON), user: user)
            guard case .success(let json) = outcome.result else { return nil }
            return try? Value(extendedJSON: json)
        }
    }

    private func ruleContext(_ user: AuthenticatedUser) -> RuleContext {
        RuleContext(userId: user.userId, userData: user.data, customData: user.customData, values: functions.ruleValues)
    }

    /// `context.services.get("mongodb-atlas").db(…).collection(…).<action>(…)`: the Data API's engine, in its
    /// transactions, so writes reach sync clients as history. A system frame runs with a rule that allows all.
    private func servicesHandler(user: AuthenticatedUser?) -> FunctionRuntime.ServiceHandler {
        let application = application
        let appRules = Result { () throws(RuleError) -> RuleSet in
            try RuleSet.parse(rules: .object(application.app.rules), defaultRule: application.app.defaultRule)
        }
        return { request in
            guard request.service == "mongodb-atlas" else {
                return .failure(APIError.badRequest("service \"\(request.service)\" is not configured"))
            }
            do throws(APIError) {
                try DataAPIValidation.checkCollection(request.collection)
            } catch {
                return .failure(error)
            }
            let rules: RuleSet
            let caller: AuthenticatedUser
            if request.runAsSystem || user == nil {
                rules = Self.systemRules
                caller = user ?? AuthenticatedUser(appId: application.app.appId, userId: "system")
            } else {
                switch appRules {
                case .success(let parsed): rules = parsed
                case .failure(let error):
                    return .failure(APIError(status: .internalServerError, errorCode: "InternalServerError",
                                             code: "invalidRules", message: "the app's rules are invalid: \(error.message)"))
                }
                caller = user!
            }
            var service = DataAPIService(
                storage: application.storage, appId: application.app.appId, rules: rules,
                engine: application.syncHandler as? SyncEngine)
            service.limits = application.app.dataAPI
            service.values = application.app.functions.ruleValues
            do {
                return .success(try await service.perform(
                    action: request.action, collection: request.collection,
                    body: request.body.mapValues(Self.plainNumbers), user: caller))
            } catch let error as APIError {
                return .failure(error)
            } catch {
                return .failure(APIError(status: .internalServerError, errorCode: "InternalServerError",
                                         code: "internal", message: "\(error)"))
            }
        }
    }

    /// The worker writes canonical Extended JSON; the Data API reads sort orders, limits and projections as plain
    /// JSON numbers. Integers become plain numbers (the server keeps one integer type anyway), as do doubles with a
    /// fraction; integral doubles keep their wrapper so that they stay doubles.
    static func plainNumbers(_ json: JSONValue) -> JSONValue {
        switch json {
        case .array(let items): return .array(items.map(plainNumbers))
        case .object(let fields):
            if fields.count == 1, case .string(let text)? = fields["$numberInt"] ?? fields["$numberLong"], let n = Int64(text) {
                return .int(n)
            }
            if fields.count == 1, case .string(let text)? = fields["$numberDouble"], let x = Double(text), x.isFinite,
                x != x.rounded()
            {
                return .double(x)
            }
            return .object(fields.mapValues(plainNumbers))
        default: return json
        }
    }

    /// Everything readable and writable: what a system function sees.
    static let systemRules = RuleSet(defaultRoles: [
        Role(name: "system", read: .alwaysTrue, write: .alwaysTrue, insert: .alwaysTrue, delete: .alwaysTrue),
    ])

    /// `context.user`: id, type, identities, data and custom data (relaxed Extended JSON).
    static func userJSON(_ user: AuthenticatedUser?, storage: any ServerStorage) async -> JSONValue {
        guard let user else {
            return .object(["id": .string("system"), "type": .string("system"), "identities": .array([]),
                            "data": .object([:]), "custom_data": .object([:])])
        }
        var identities: [JSONValue] = []
        if let stored = try? await storage.user(appId: user.appId, id: user.userId) {
            identities.append(.object(["id": .string(stored.identity), "provider_type": .string(stored.provider)]))
        }
        return .object([
            "id": .string(user.userId), "type": .string("normal"), "identities": .array(identities),
            "data": Value.document(user.data).extendedJSON, "custom_data": Value.document(user.customData).extendedJSON,
        ])
    }

    private func log(_ name: String, user: AuthenticatedUser?, outcome: FunctionRuntime.Outcome) async {
        let who = user.map { "user \($0.userId)" } ?? "the system user"
        let ms = Double(outcome.duration.components.attoseconds) / 1e15 + Double(outcome.duration.components.seconds) * 1e3
        let took = String(format: "%.1f ms", ms)
        var details: [String: Value] = [
            "function": .string(name), "duration_ms": .double(ms),
            "logs": .array(outcome.logs.map { .string("[\($0.level)] \($0.message)") }),
        ]
        if let user { details["user_id"] = .string(user.userId) }
        if outcome.droppedLogLines > 0 { details["dropped_log_lines"] = .int(Int64(outcome.droppedLogLines)) }
        let message: String
        let level: String
        switch outcome.result {
        case .success:
            message = "function '\(name)' called by \(who): ok in \(took)"
            level = "info"
        case .failure(let error):
            message = "function '\(name)' called by \(who) failed in \(took): \(error.errorCode): \(error.message)"
            level = "error"
            details["error_code"] = .string(error.errorCode)
            details["error"] = .string(error.message)
        }
        try? await application.storage.appendLog(LogRecord(
            appId: application.app.appId, kind: "function", level: level, message: message,
            details: .document(Document(details))))
    }
}
