import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP method, as Realm's `RLMHTTPMethod`.
public enum RLMHTTPMethod: Int, Sendable {
    case GET, POST, PATCH, PUT, DELETE

    var name: String {
        switch self {
        case .GET: "GET"
        case .POST: "POST"
        case .PATCH: "PATCH"
        case .PUT: "PUT"
        case .DELETE: "DELETE"
        }
    }
}

/// An HTTP request the app asks its transport to send, as Realm's `RLMRequest`.
public struct RLMRequest: Sendable {
    public var url: String
    public var method: RLMHTTPMethod
    public var headers: [String: String]
    public var body: String
    /// The timeout in seconds.
    public var timeout: TimeInterval

    public init(url: String, method: RLMHTTPMethod, headers: [String: String], body: String, timeout: TimeInterval) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The answer to an ``RLMRequest``, as Realm's `RLMResponse`.
public struct RLMResponse: Sendable {
    /// The HTTP status (0 when the request failed before an answer).
    public var httpStatusCode: Int
    public var headers: [String: String]
    public var body: String
    /// Non-zero when the request failed without an HTTP answer (the transport's own error code); `body` then says
    /// why.
    public var customStatusCode: Int

    public init(httpStatusCode: Int, headers: [String: String] = [:], body: String, customStatusCode: Int = 0) {
        self.httpStatusCode = httpStatusCode
        self.headers = headers
        self.body = body
        self.customStatusCode = customStatusCode
    }
}

/// Sends the app's HTTP requests, as Realm's `RLMNetworkTransport`. Subclass it to route requests elsewhere (a
/// proxy, a test double); the default sends them with `URLSession`.
open class RLMNetworkTransport: @unchecked Sendable {
    // @unchecked Sendable: the base class has no state; subclasses with state must make it thread-safe.

    public init() {}

    /// Sends `request` and calls `completion` exactly once, on any thread.
    open func sendRequestToServer(_ request: RLMRequest, completion: @escaping @Sendable (RLMResponse) -> Void) {
        guard let url = URL(string: request.url) else {
            completion(RLMResponse(httpStatusCode: 0, body: "invalid URL \(request.url)", customStatusCode: -1))
            return
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.name
        urlRequest.timeoutInterval = request.timeout
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if request.method != .GET { urlRequest.httpBody = Data(request.body.utf8) }
        URLSession.shared.dataTask(with: urlRequest) { data, response, error in
            if let error {
                let code = (error as? URLError)?.errorCode ?? -1
                completion(RLMResponse(httpStatusCode: 0, body: error.localizedDescription, customStatusCode: code))
                return
            }
            guard let http = response as? HTTPURLResponse else {
                completion(RLMResponse(httpStatusCode: 0, body: "not an HTTP response", customStatusCode: -1))
                return
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name] = value }
            }
            completion(
                RLMResponse(
                    httpStatusCode: http.statusCode, headers: headers,
                    body: data.map { String(decoding: $0, as: UTF8.self) } ?? ""))
        }.resume()
    }
}
