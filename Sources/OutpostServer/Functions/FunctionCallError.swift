import Foundation
import Hummingbird

/// Why a function call did not return a value, with the App Services error code a client sees.
public struct FunctionCallError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No function of that name (`FunctionNotFound`, 404).
        case notFound
        /// Private, or its `can_evaluate` refused the caller (`NotCallable`, 403).
        case notCallable
        /// The function threw, or its result cannot be sent (`FunctionExecutionError`, 400).
        case threw
        /// Its source does not compile (`FunctionSyntaxError`, 400).
        case syntaxError
        /// Its source does not export a function (`FunctionInvalid`, 400).
        case invalid
        /// It ran past the time limit; its worker was killed (`ExecutionTimeLimitExceeded`, 400).
        case timeLimit
        /// It needed more memory than the limit; its worker died (`FunctionExecutionError`, 400).
        case memoryLimit
        /// Its worker process ended for another reason (`FunctionExecutionError`, 500).
        case workerDied
        /// Every worker is busy and the queue is full (`TooManyRequests`, 429).
        case busy
        /// No JavaScript runtime is installed or it does not start (`InternalServerError`, 503).
        case runtimeUnavailable
        /// The request is not a valid call (`BadRequest` / `ArgumentsNotAllowed`, 400).
        case badRequest
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(errorCode): \(message)" }

    /// App Services' `error_code` for this error.
    public var errorCode: String {
        switch kind {
        case .notFound: "FunctionNotFound"
        case .notCallable: "NotCallable"
        case .threw, .memoryLimit, .workerDied: "FunctionExecutionError"
        case .syntaxError: "FunctionSyntaxError"
        case .invalid: "FunctionInvalid"
        case .timeLimit: "ExecutionTimeLimitExceeded"
        case .busy: "TooManyRequests"
        case .runtimeUnavailable: "InternalServerError"
        case .badRequest: "BadRequest"
        }
    }

    var apiError: APIError {
        let status: Int
        switch kind {
        case .notFound: status = 404
        case .notCallable: status = 403
        case .busy: status = 429
        case .runtimeUnavailable: status = 503
        case .workerDied: status = 500
        default: status = 400
        }
        return APIError(status: .init(code: status), errorCode: errorCode, code: "function_\(kind.rawValue)",
                        message: message, retryAfterSeconds: kind == .busy ? 1 : nil)
    }
}
