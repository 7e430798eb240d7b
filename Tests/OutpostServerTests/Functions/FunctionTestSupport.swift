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
    try await TemporaryDirectory.with("functions") { directory in
        let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
        var app = try AppDefinition(jsonText: """
            {"app_id": "fn-app", "functions": \(functions), "functions_runtime": \(runtime), "values": \(values),
             "auth": {"anonymous": {"enabled": true}}, "sync": {"development_mode_enabled": true}}
            """)
        let development = AppDefinition.development(appId: "fn-app")
        app.auth = development.auth
        app.sync = development.sync
        app.defaultRule = development.defaultRule
        app.dataAPI.enabled = true
        for (collection, role) in rules { app.rules[collection] = .object(["roles": .array([role])]) }
        let settings = try SyncAppSettings(app: app)
        let engine = SyncEngine(storage: storage) { $0 == settings.appId ? settings : nil }
        do {
            let result = try await withTestServer(configuration: app, storage: storage, handler: engine, body)
            try await storage.close()
            return result
        } catch {
            try? await storage.close()
            throw error
        }
    }
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
