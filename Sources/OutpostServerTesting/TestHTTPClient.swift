import Foundation
import OutpostCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small JSON-over-HTTP client on URLSession for tests (plain HTTP works with URLSession on Linux; WebSockets do
/// not — use `HummingbirdWSClient` for those).
public struct TestHTTPClient: Sendable {
    /// The server's root, like `http://127.0.0.1:54321`.
    public var baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    /// One response: its status, headers and body.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body parsed as JSON (nil when it is not JSON).
        package var json: JSONValue? { JSONValue.parse(text) }

        /// A string field of a JSON object body.
        public subscript(field: String) -> String? {
            guard case .object(let fields)? = json, case .string(let s)? = fields[field] else { return nil }
            return s
        }

        /// The `error_code` of an error body.
        public var errorCode: String? { self["error_code"] }
        /// Outpost's `code` of an error body.
        public var code: String? { self["code"] }
    }

    /// Sends a request. `json` is sent as the body with `Content-Type: application/json`; `rawBody` as it is.
    package func send(
        _ method: String, _ path: String, json: JSONValue? = nil, rawBody: String? = nil, bearer: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> Response {
        var request = URLRequest(url: URL(string: baseURL + (path.hasPrefix("/") ? path : "/" + path))!)
        request.httpMethod = method
        request.timeoutInterval = 30
        if let body = rawBody ?? json?.text {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Response(status: http.statusCode, headers: fields, body: data)
    }

    public func get(_ path: String, bearer: String? = nil) async throws -> Response {
        try await send("GET", path, bearer: bearer)
    }

    package func post(_ path: String, json: JSONValue = .object([:]), bearer: String? = nil) async throws -> Response {
        try await send("POST", path, json: json, bearer: bearer)
    }

    public func delete(_ path: String, bearer: String? = nil) async throws -> Response {
        try await send("DELETE", path, bearer: bearer)
    }
}
