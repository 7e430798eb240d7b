import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// The seed page's role.
let ownerReadWriteRole: JSONValue = JSONValue.parse("""
    {"name": "owner-read-write", "apply_when": {}, "document_filters": {"read": {"ownerId": "%%user.id"}, "write": {"ownerId": "%%user.id"}}, "read": true, "write": true, "insert": true, "delete": true}
    """)!

/// Everyone reads, only the owner writes.
let readAllWriteOwnRole: JSONValue = JSONValue.parse("""
    {"name": "read-all-write-own", "apply_when": {}, "document_filters": {"read": true, "write": {"ownerId": "%%user.id"}}, "read": true, "write": true, "insert": true, "delete": true}
    """)!

/// A hidden field: `secret` is neither readable nor writable.
let hiddenFieldRole: JSONValue = JSONValue.parse("""
    {"name": "no-secret", "apply_when": {}, "document_filters": {"read": true, "write": true}, "read": true, "write": true, "insert": true, "delete": true, "fields": {"secret": {"read": false, "write": false}}, "additional_fields": {"read": true, "write": true}}
    """)!

/// A test server for the Data API: the development app (with extra rules), a real SQLite storage in a temporary
/// directory and the default sync engine.
func withDataServer<T>(
    rules: [String: JSONValue] = [:], dataAPIEnabled: Bool = true,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    var app = AppDefinition.development(appId: "data-app")
    for (collection, role) in rules { app.rules[collection] = .object(["roles": .array([role])]) }
    app.dataAPI.enabled = dataAPIEnabled
    return try await withSQLiteServer(app, label: "data-api", body)
}

/// A test server for `app` on a real SQLite storage in a temporary directory, with the server's own sync engine;
/// the storage is closed afterwards.
func withSQLiteServer<T>(_ app: AppDefinition, label: String, _ body: (TestServer) async throws -> T) async throws -> T {
    try await TemporaryDirectory.with(label) { directory in
        let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
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

struct DataUser {
    let id: String
    let token: String
}

extension TestServer {
    func newUser() async throws -> DataUser {
        let login = try await auth.loginAnonymous()
        return DataUser(id: login.userId, token: login.accessToken)
    }

    func dataPath(_ collection: String, _ action: String) -> String {
        let escaped = collection.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? collection
        return clientPath("data/\(escaped)/\(action)")
    }

    /// Sends a Data API request and returns the status and the parsed JSON body.
    func data(
        _ collection: String, _ action: String, _ body: String, as user: DataUser?
    ) async throws -> (status: Int, json: JSONValue) {
        let response = try await client.send("POST", dataPath(collection, action), rawBody: body, bearer: user?.token)
        return (response.status, JSONValue.parse(response.text) ?? .null)
    }

    /// A Data API request that must succeed.
    @discardableResult
    func ok(
        _ collection: String, _ action: String, _ body: String, as user: DataUser,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let (status, json) = try await data(collection, action, body, as: user)
        #expect(status == 200 || status == 201, "\(action) \(body): \(status) \(json.text)", sourceLocation: sourceLocation)
        return json
    }

    var adminKey: String {
        get throws {
            try String(contentsOf: dataDirectory.appendingPathComponent("admin-key"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    var items: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var intValue: Int64? {
        if case .int(let v) = self { return v }
        return nil
    }
}
