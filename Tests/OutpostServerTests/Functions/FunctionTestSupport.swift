import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// A test server whose app has the given functions (from app-file JSON), on a real SQLite storage, with the Data
/// API's rules given per collection.
func withFunctionServer<T>(
    functions: String, runtime: String = "{}", values: String = "{}", rules: [String: JSONValue] = [:],
    _ body: (TestServer) async throws -> T
) async throws -> T {
    var app = try AppDefinition(jsonText: """
        {"app_id": "fn-app", "functions": \(functions), "functions_runtime": \(runtime), "values": \(values)}
        """)
    let development = AppDefinition.development(appId: "fn-app")
    app.auth = development.auth
    app.sync = development.sync
    app.defaultRule = development.defaultRule
    app.dataAPI.enabled = true
    for (collection, role) in rules { app.rules[collection] = .object(["roles": .array([role])]) }
    return try await withSQLiteServer(app, label: "functions", body)
}

/// `{"name": …, "source": …}` entries of an app file.
func functionEntries(_ entries: [(name: String, source: String)], extra: [String: String] = [:]) -> String {
    let items = entries.map { entry -> String in
        var fields: [String: JSONValue] = ["name": .string(entry.name), "source": .string(entry.source)]
        if let more = extra[entry.name], case .object(let other)? = JSONValue.parse(more) {
            fields.merge(other) { $1 }
        }
        return JSONValue.object(fields).text
    }
    return "[" + items.joined(separator: ",") + "]"
}

extension TestServer {
    /// `POST …/functions/call`; the status and the parsed answer.
    func callFunction(_ name: String, _ arguments: String = "[]", as user: DataUser?) async throws
        -> (status: Int, json: JSONValue)
    {
        let body = #"{"name": \#(JSONValue.string(name).text), "arguments": \#(arguments)}"#
        let response = try await client.send("POST", clientPath("functions/call"), rawBody: body, bearer: user?.token)
        return (response.status, JSONValue.parse(response.text) ?? .null)
    }

    /// An admin API request with the admin key.
    func admin(_ method: String, _ path: String, _ body: String? = nil) async throws -> (status: Int, json: JSONValue) {
        let response = try await client.send(
            method, "/api/admin/v1/\(path)", rawBody: body, headers: ["X-Admin-Key": try adminKey])
        return (response.status, JSONValue.parse(response.text) ?? .null)
    }
}
