import Foundation

/// An error from a request to the server: login, registration, tokens, the Data API. Realm Swift's `AppError`
/// (`RLMAppError`, domain `io.realm.app`) with its codes and numeric values, so `catch AppError.invalidPassword`
/// and `error.code == .userNotFound` work as with Realm.
///
/// ``localizedDescription`` is the server's own message (for example `invalid username/password`); a request that
/// never reached the server says which URL could not be reached and why.
public struct AppError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError, CustomNSError {
    /// Realm's `RLMAppError` codes.
    public enum Code: Int, Sendable {
        case unknown = -1
        case httpRequestFailed = 1
        case invalidSession = 2
        case badRequest = 3
        case userNotFound = 4
        case userAppDomainMismatch = 5
        case domainNotAllowed = 6
        case readSizeLimitExceeded = 7
        case invalidParameter = 8
        case missingParameter = 9
        case functionExecutionError = 10
        case internalServerError = 11
        case authProviderNotFound = 12
        case valueNotFound = 13
        case valueAlreadyExists = 14
        case valueDuplicateName = 15
        case functionNotFound = 16
        case functionSyntaxError = 17
        case functionInvalid = 18
        case apiKeyAlreadyExists = 19
        case executionTimeLimitExceeded = 20
        case notCallable = 21
        case userAlreadyConfirmed = 22
        case userDisabled = 23
        case authError = 24
        case accountNameInUse = 25
        case invalidPassword = 26
        case maintenanceInProgress = 27
        case mongoDBError = 28
    }

    public let code: Code
    /// What went wrong: the server's message, or what the client refused and why.
    public let message: String
    /// The HTTP status of the failed response; nil when there was no response.
    public let httpStatusCode: Int?
    /// The server's `error_code` (App Services' name, like `InvalidPassword`).
    ///
    /// Outpost-only.
    public let serverErrorCode: String?
    /// outpost-server's precise code (`expiredToken`, `unknownOperator`, `duplicateKey`, …).
    ///
    /// Outpost-only.
    public let serverCode: String?

    public init(
        _ code: Code, _ message: String, httpStatusCode: Int? = nil, serverErrorCode: String? = nil,
        serverCode: String? = nil
    ) {
        self.code = code
        self.message = message
        self.httpStatusCode = httpStatusCode
        self.serverErrorCode = serverErrorCode
        self.serverCode = serverCode
    }

    public var description: String { message }
    public var errorDescription: String? { message }
    public var localizedDescription: String { message }

    /// `io.realm.app`, as Realm's `RLMAppErrorDomain`.
    public static var errorDomain: String { "io.realm.app" }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }

    public static let unknown = Code.unknown
    public static let httpRequestFailed = Code.httpRequestFailed
    public static let invalidSession = Code.invalidSession
    public static let badRequest = Code.badRequest
    public static let userNotFound = Code.userNotFound
    public static let userAppDomainMismatch = Code.userAppDomainMismatch
    public static let domainNotAllowed = Code.domainNotAllowed
    public static let readSizeLimitExceeded = Code.readSizeLimitExceeded
    public static let invalidParameter = Code.invalidParameter
    public static let missingParameter = Code.missingParameter
    public static let functionExecutionError = Code.functionExecutionError
    public static let internalServerError = Code.internalServerError
    public static let authProviderNotFound = Code.authProviderNotFound
    public static let valueNotFound = Code.valueNotFound
    public static let valueAlreadyExists = Code.valueAlreadyExists
    public static let valueDuplicateName = Code.valueDuplicateName
    public static let functionNotFound = Code.functionNotFound
    public static let functionSyntaxError = Code.functionSyntaxError
    public static let functionInvalid = Code.functionInvalid
    public static let apiKeyAlreadyExists = Code.apiKeyAlreadyExists
    public static let executionTimeLimitExceeded = Code.executionTimeLimitExceeded
    public static let notCallable = Code.notCallable
    public static let userAlreadyConfirmed = Code.userAlreadyConfirmed
    public static let userDisabled = Code.userDisabled
    public static let authError = Code.authError
    public static let accountNameInUse = Code.accountNameInUse
    public static let invalidPassword = Code.invalidPassword
    public static let maintenanceInProgress = Code.maintenanceInProgress
    public static let mongoDBError = Code.mongoDBError
}

extension AppError.Code {
    /// Lets `catch AppError.invalidPassword { … }` match by code.
    public static func ~= (code: AppError.Code, error: any Error) -> Bool {
        (error as? AppError)?.code == code
    }

    /// The code for a server `error_code`, as Realm maps App Services' codes.
    init(serverErrorCode: String) {
        switch serverErrorCode {
        case "InvalidSession", "MissingAuthReq": self = .invalidSession
        case "InvalidPassword": self = .invalidPassword
        case "UserNotFound": self = .userNotFound
        case "UserDisabled": self = .userDisabled
        case "AccountNameInUse": self = .accountNameInUse
        case "UserNotConfirmed", "AuthError": self = .authError
        case "UserAlreadyConfirmed": self = .userAlreadyConfirmed
        case "AuthProviderNotFound": self = .authProviderNotFound
        case "BadRequest", "InvalidParameter", "ArgumentsNotAllowed", "UnknownOperator", "InvalidFieldName",
            "InvalidCollectionName", "UserpassConfirmationFailed", "UserpassTokenInvalid":
            self = .badRequest
        case "MissingParameter": self = .missingParameter
        case "DuplicateKey", "WritePermissionDenied", "MongoDBError": self = .mongoDBError
        case "InternalServerError": self = .internalServerError
        case "ValueNotFound": self = .valueNotFound
        case "APIKeyAlreadyExists": self = .apiKeyAlreadyExists
        case "FunctionNotFound": self = .functionNotFound
        case "FunctionExecutionError": self = .functionExecutionError
        case "FunctionSyntaxError": self = .functionSyntaxError
        case "FunctionInvalid": self = .functionInvalid
        case "ExecutionTimeLimitExceeded": self = .executionTimeLimitExceeded
        case "NotCallable": self = .notCallable
        default: self = .httpRequestFailed
        }
    }
}
