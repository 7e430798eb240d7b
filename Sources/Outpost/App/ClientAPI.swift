import Foundation
import OutpostCore

/// The client side of outpost-server's client API (`/api/client/v2.0/app/{appId}/…`): one JSON request at a
/// time through the configured ``RLMNetworkTransport``, failures turned into ``AppError``s.
struct ClientAPI: Sendable {
    let appId: String
    /// `http(s)://host:port`, no trailing slash.
    let baseURL: String
    let transport: RLMNetworkTransport
    /// Seconds.
    let timeout: TimeInterval

    /// The URL of an endpoint under the app's client API path.
    func url(_ endpoint: String) -> String {
        let app = appId.addingPercentEncoding(withAllowedCharacters: .urlPathComponentAllowed) ?? appId
        return "\(baseURL)/api/client/v2.0/app/\(app)/\(endpoint)"
    }

    /// Sends one request and returns the JSON answer (nil for an empty body).
    ///
    /// - Throws: ``AppError``: the server's error with its message and code, `.httpRequestFailed` naming the URL
    ///   when the server could not be reached, `.badRequest` when the answer is not JSON.
    func send(_ method: RLMHTTPMethod, _ endpoint: String, body: JSONValue? = nil, bearer: String? = nil)
        async throws(AppError) -> JSONValue?
    {
        try await send(method, endpoint, bodyText: body?.text, bearer: bearer)
    }

    /// Sends one request whose JSON body is already written (`bodyText`), and returns the JSON answer.
    func send(_ method: RLMHTTPMethod, _ endpoint: String, bodyText: String?, bearer: String? = nil)
        async throws(AppError) -> JSONValue?
    {
        let url = url(endpoint)
        var headers = ["Accept": "application/json"]
        if bodyText != nil { headers["Content-Type"] = "application/json" }
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        let request = RLMRequest(url: url, method: method, headers: headers, body: bodyText ?? "", timeout: timeout)
        let transport = self.transport
        let response = await withCheckedContinuation { (continuation: CheckedContinuation<RLMResponse, Never>) in
            transport.sendRequestToServer(request) { continuation.resume(returning: $0) }
        }
        return try Self.result(of: response, method: method, url: url)
    }

    static func result(of response: RLMResponse, method: RLMHTTPMethod, url: String) throws(AppError) -> JSONValue? {
        if response.customStatusCode != 0 || response.httpStatusCode == 0 {
            throw AppError(.httpRequestFailed, "cannot reach the server at \(url): \(response.body)")
        }
        let text = response.body
        let json = text.allSatisfy(\.isWhitespace) ? nil : JSONValue.parse(text)
        guard (200..<300).contains(response.httpStatusCode) else {
            throw error(status: response.httpStatusCode, json: json, body: text, method: method, url: url)
        }
        if json == nil, !text.allSatisfy(\.isWhitespace) {
            throw AppError(
                .badRequest, "the server's answer to \(method.name) \(url) is not JSON",
                httpStatusCode: response.httpStatusCode)
        }
        return json
    }

    /// The error of a non-2xx answer: `{"error", "error_code", "code"}` in App Services' shape.
    static func error(status: Int, json: JSONValue?, body: String, method: RLMHTTPMethod, url: String) -> AppError {
        guard case .object(let fields)? = json, case .string(let message)? = fields["error"] else {
            let snippet = body.prefix(200)
            return AppError(
                .httpRequestFailed,
                "\(method.name) \(url) failed with HTTP status \(status)\(snippet.isEmpty ? "" : ": \(snippet)")",
                httpStatusCode: status)
        }
        var errorCode: String?
        if case .string(let s)? = fields["error_code"] { errorCode = s }
        var code: String?
        if case .string(let s)? = fields["code"] { code = s }
        return AppError(
            errorCode.map(AppError.Code.init(serverErrorCode:)) ?? .httpRequestFailed, message, httpStatusCode: status,
            serverErrorCode: errorCode, serverCode: code)
    }
}

extension CharacterSet {
    /// Characters that may stand unescaped in one path component.
    static let urlPathComponentAllowed: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/;")
        return set
    }()
}

extension JSONValue {
    /// The string of a field of an object, or nil.
    func stringField(_ key: String) -> String? {
        guard case .object(let fields) = self, case .string(let s)? = fields[key] else { return nil }
        return s
    }

    /// A field of an object, or nil.
    func field(_ key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]
    }
}
