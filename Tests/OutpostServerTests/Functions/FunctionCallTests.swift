import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// `POST …/functions/call` against a real server running its functions in Node.js workers.
@Suite struct FunctionCallTests {
    static let basics = functionEntries([
        ("sum", "exports = function(a, b) { return a + b; };"),
        ("echo", "exports = (...args) => args;"),
        ("whoami", """
            exports = async function() {
              console.log("called by", context.user.id);
              return { id: context.user.id, type: context.user.type, greeting: context.values.get("greeting") };
            };
            """),
        ("twice", "exports = async (x) => 2 * await context.functions.execute('secretHelper', x);"),
        ("secretHelper", "exports = (x) => x + 1;"),
        ("fails", "exports = function() { throw new Error('no luck today'); };"),
        ("broken", "exports = function( {;"),
        ("notAFunction", "exports = 42;"),
        ("adminsOnly", "exports = () => 'yes';"),
        ("anyone", "exports = () => 'ok';"),
    ], extra: [
        "secretHelper": #"{"private": true}"#,
        "adminsOnly": #"{"can_evaluate": {"%%user.data.role": "admin"}}"#,
        "anyone": #"{"can_evaluate": {}}"#,
    ])

    @Test func callsAndResults() async throws {
        try await withFunctionServer(functions: Self.basics, values: #"{"greeting": "hello"}"#) { server in
            let user = try await server.newUser()
            let sum = try await server.callFunction("sum", #"[{"$numberInt": "1"}, {"$numberInt": "2"}]"#, as: user)
            #expect(sum.status == 200)
            #expect(sum.json == JSONValue.parse(#"{"$numberInt": "3"}"#))
            let args = #"[{"$numberLong": "5"}, {"$numberDouble": "2.0"}, "text", null, {"a": [true]}]"#
            let echo = try await server.callFunction("echo", args, as: user)
            #expect(echo.json == JSONValue.parse(args), "\(echo.json.text)")
            let whoami = try await server.callFunction("whoami", as: user)
            #expect(whoami.json["id"] == .string(user.id))
            #expect(whoami.json["type"] == .string("normal"))
            #expect(whoami.json["greeting"] == .string("hello"))
            let twice = try await server.callFunction("twice", #"[{"$numberInt": "4"}]"#, as: user)
            #expect(twice.json == JSONValue.parse(#"{"$numberInt": "10"}"#))
            let anyone = try await server.callFunction("anyone", as: user)
            #expect(anyone.json == .string("ok"))
        }
    }

    @Test func errorsHaveAppServicesCodes() async throws {
        try await withFunctionServer(functions: Self.basics) { server in
            let user = try await server.newUser()
            let cases: [(String, Int, String, String)] = [
                ("nosuch", 404, "FunctionNotFound", "function not found: 'nosuch'"),
                ("secretHelper", 403, "NotCallable", "private"),
                ("adminsOnly", 403, "NotCallable", "rule not matched"),
                ("fails", 400, "FunctionExecutionError", "no luck today"),
                ("broken", 400, "FunctionSyntaxError", "function 'broken' does not compile"),
                ("notAFunction", 400, "FunctionInvalid", "notAFunction"),
            ]
            for (name, status, code, message) in cases {
                let answer = try await server.callFunction(name, as: user)
                #expect(answer.status == status, "\(name): \(answer.json.text)")
                #expect(answer.json["error_code"] == .string(code), "\(name): \(answer.json.text)")
                #expect(answer.json["error"]?.stringValue?.contains(message) == true, "\(name): \(answer.json.text)")
            }
            let anonymous = try await server.callFunction("sum", as: nil)
            #expect(anonymous.status == 401)
            for body in [#"{"arguments": []}"#, #"{"name": 3}"#, #"{"name": "sum", "arguments": {}}"#,
                         #"{"name": "sum", "argz": []}"#, #"{"name": "find", "service": "mongodb-atlas"}"#] {
                let response = try await server.client.send(
                    "POST", server.clientPath("functions/call"), rawBody: body, bearer: user.token)
                #expect(response.status == 400, "\(body)")
            }
            // After all of these, the workers still answer.
            let sum = try await server.callFunction("sum", "[1, 2]", as: user)
            #expect(sum.json == JSONValue.parse(#"{"$numberInt": "3"}"#))
        }
    }

    @Test func eachCallIsLoggedWithWhatTheFunctionPrinted() async throws {
        try await withFunctionServer(functions: Self.basics) { server in
            let user = try await server.newUser()
            _ = try await server.callFunction("whoami", as: user)
            _ = try await server.callFunction("fails", as: user)
            let logs = try await server.admin("GET", "logs?kind=function")
            let records = logs.json["logs"]?.items ?? []
            let messages = records.compactMap { $0["message"]?.stringValue }
            #expect(messages.contains { $0.contains("'whoami'") && $0.contains(user.id) && $0.contains("ok") }, "\(messages)")
            #expect(messages.contains { $0.contains("'fails'") && $0.contains("FunctionExecutionError") }, "\(messages)")
            let whoami = records.first { $0["message"]?.stringValue?.contains("'whoami'") == true }
            #expect(whoami?.text.contains("called by \(user.id)") == true, "\(whoami?.text ?? "")")
        }
    }

    @Test func theAdminAPIListsAndRunsFunctions() async throws {
        try await withFunctionServer(functions: Self.basics, values: #"{"greeting": "hi"}"#) { server in
            let user = try await server.newUser()
            let list = try await server.admin("GET", "functions")
            #expect(list.status == 200)
            let names = list.json["functions"]?.items.compactMap { $0["name"]?.stringValue } ?? []
            #expect(names.contains("sum") && names.contains("secretHelper"))
            #expect(list.json["runtime"]?["available"] == .bool(true))
            let asUser = try await server.admin("POST", "functions/whoami/run", #"{"user_id": "\#(user.id)"}"#)
            #expect(asUser.json["result"]?["id"] == .string(user.id), "\(asUser.json.text)")
            #expect(asUser.json["logs"]?.items.first?["message"] == .string("called by \(user.id)"))
            let asSystem = try await server.admin("POST", "functions/whoami/run", #"{"user_id": null}"#)
            #expect(asSystem.json["result"]?["type"] == .string("system"))
            // The console may run a private function; a failure comes back as an error, not a failed request.
            let helper = try await server.admin("POST", "functions/secretHelper/run", #"{"arguments": [1]}"#)
            #expect(helper.json["result"] == JSONValue.parse(#"{"$numberInt": "2"}"#))
            let fails = try await server.admin("POST", "functions/fails/run", "{}")
            #expect(fails.status == 200 && fails.json["error"]?["error_code"] == .string("FunctionExecutionError"))
            let missing = try await server.admin("POST", "functions/nosuch/run", "{}")
            #expect(missing.status == 404)
            let nobody = try await server.admin("POST", "functions/sum/run", #"{"user_id": "nobody"}"#)
            #expect(nobody.status == 404)
            let refused = try await server.client.send("GET", "/api/admin/v1/functions", headers: ["X-Admin-Key": "wrong"])
            #expect(refused.status == 403)
        }
    }

    @Test func withoutNodeTheRestOfTheServerWorks() async throws {
        try await withFunctionServer(functions: Self.basics, runtime: #"{"node": "/nonexistent/node"}"#) { server in
            let user = try await server.newUser()
            let call = try await server.callFunction("sum", "[1, 2]", as: user)
            #expect(call.status == 503, "\(call.json.text)")
            #expect(call.json["error"]?.stringValue?.contains("/nonexistent/node") == true, "\(call.json.text)")
            let list = try await server.admin("GET", "functions")
            #expect(list.json["runtime"]?["available"] == .bool(false))
            #expect(list.json["runtime"]?["problem"]?.stringValue?.contains("JavaScript runtime") == true)
            let users = try await server.admin("GET", "users")
            #expect(users.status == 200)
        }
    }
}
