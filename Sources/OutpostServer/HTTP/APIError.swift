import Hummingbird
import NIOCore
import NIOHTTP1
import OutpostCore

/// An error answered as JSON in App Services' shape:
/// `{"error": "<message>", "error_code": "<App Services code>", "code": "<Outpost code>"}`.
///
/// `error_code` is the code App Services gives for the same failure (for example `InvalidSession` for any bad or
/// expired token, which makes Realm-style clients refresh); `code` is Outpost's precise code (`expiredToken`).
public struct APIError: Error, HTTPResponseError, Hashable, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    /// App Services' error code.
    public var errorCode: String
    /// Outpost's code (the ``AuthError/Code`` raw value, or `badRequest`, `appNotFound`, …).
    public var code: String
    public var message: String
    /// Sent as the `Retry-After` header (seconds) when set.
    public var retryAfterSeconds: Int?

    public init(
        status: HTTPResponse.Status, errorCode: String, code: String, message: String, retryAfterSeconds: Int? = nil
    ) {
        self.status = status
        self.errorCode = errorCode
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(status.code) \(errorCode) (\(code)): \(message)" }

    public static func badRequest(_ message: String) -> APIError {
        APIError(status: .badRequest, errorCode: "BadRequest", code: "badRequest", message: message)
    }

    public static func appNotFound(_ appId: String) -> APIError {
        APIError(status: .notFound, errorCode: "AppNotFound", code: "appNotFound", message: "cannot find app using Client App ID '\(appId)'")
    }

    public static func notFound(_ message: String) -> APIError {
        APIError(status: .notFound, errorCode: "NotFound", code: "notFound", message: message)
    }

    /// 408: the request's head or body did not arrive in time (``ConnectionDeadlines``).
    public static func requestTimeout() -> APIError {
        APIError(status: .requestTimeout, errorCode: "RequestTimeout", code: "requestTimeout",
                 message: "the request did not arrive in time")
    }

    /// 413: the request body is over the endpoint's limit.
    public static func bodyTooLarge(limit: Int) -> APIError {
        APIError(status: .contentTooLarge, errorCode: "BadRequest", code: "bodyTooLarge",
                 message: "the request body may be at most \(limit) bytes")
    }

    /// 400: the bytes are not an HTTP/1.1 request (request line, header, chunked encoding).
    public static func malformedRequest() -> APIError {
        APIError(status: .badRequest, errorCode: "BadRequest", code: "malformedRequest",
                 message: "the request is not valid HTTP/1.1")
    }

    /// 429: the user already has the most sync connections allowed.
    public static func tooManyConnections(limit: Int) -> APIError {
        APIError(status: .tooManyRequests, errorCode: "TooManyRequests", code: "tooManyConnections",
                 message: "a user may have at most \(limit) sync connections open")
    }

    public static func internalError() -> APIError {
        APIError(status: .internalServerError, errorCode: "InternalServerError", code: "internal", message: "internal server error")
    }

    /// The HTTP form of an auth failure.
    public init(_ error: AuthError) {
        let (status, errorCode): (HTTPResponse.Status, String) =
            switch error.code {
            case .missingToken: (.unauthorized, "MissingAuthReq")
            case .invalidToken, .invalidSignature, .expiredToken, .wrongApp: (.unauthorized, "InvalidSession")
            case .invalidPassword, .invalidAPIKey: (.unauthorized, "InvalidPassword")
            case .notConfirmed: (.unauthorized, "UserNotConfirmed")
            case .userNotFound: (.unauthorized, "UserNotFound")
            case .userExists: (.conflict, "AccountNameInUse")
            case .identityInUse: (.unauthorized, "InvalidSession")
            case .linkNotAllowed: (.badRequest, "InvalidParameter")
            case .providerDisabled: (.badRequest, "AuthProviderNotFound")
            case .invalidEmail, .passwordTooShort: (.badRequest, "BadRequest")
            case .invalidConfirmation: (.badRequest, "UserpassConfirmationFailed")
            case .invalidResetToken: (.badRequest, "UserpassTokenInvalid")
            case .functionNotConfigured: (.notFound, "FunctionNotFound")
            case .signingKeysUnavailable: (.serviceUnavailable, "AuthError")
            case .tooManyRequests: (.tooManyRequests, "TooManyRequests")
            case .hashingBusy: (.serviceUnavailable, "ServiceUnavailable")
            default: (.badRequest, "AuthError")
            }
        self.init(
            status: status, errorCode: errorCode, code: error.code.rawValue, message: error.message,
            retryAfterSeconds: error.retryAfterSeconds)
    }

    /// The HTTP form of any error thrown by a route.
    public init(from error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as AuthError: self.init(error)
        case let error as NIOTooManyBytesError: self = .bodyTooLarge(limit: error.maxBytes ?? 0)
        case is HTTPParserError: self = .malformedRequest()
        case let error as HTTPError:
            self.init(
                status: error.status, errorCode: error.status == .notFound ? "NotFound" : "BadRequest",
                code: error.status == .notFound ? "notFound" : "httpError",
                message: error.body ?? error.status.reasonPhrase)
        default: self = .internalError()
        }
    }

    /// Whether the answer closes the connection: the request's remaining bytes are not worth reading.
    var closesConnection: Bool {
        status == .contentTooLarge || code == "malformedRequest"
    }

    var json: JSONValue {
        .object(["error": .string(message), "error_code": .string(errorCode), "code": .string(code)])
    }

    /// The JSON response, with `Retry-After` when the error has one.
    var jsonResponse: Response {
        var response = Response.json(json, status: status)
        if let retryAfterSeconds { response.headers[.retryAfter] = String(retryAfterSeconds) }
        return response
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        jsonResponse
    }
}
