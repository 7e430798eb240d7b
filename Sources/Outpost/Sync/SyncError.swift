import Foundation
import OutpostCore

/// An error of a sync session, reported to `app.syncManager.errorHandler` (Realm's `SyncError`, domain
/// `io.realm.sync`). A compensating write arrives as `.writeRejected` with `compensatingWriteInfo`.
public struct SyncError: Error, CustomNSError, LocalizedError, CustomStringConvertible, @unchecked Sendable {
    /// Realm's `RLMSyncError` codes.
    public enum Code: Int, Sendable {
        case clientSessionError = 4
        case clientUserError = 5
        case clientInternalError = 6
        case clientResetError = 7
        case underlyingAuthError = 8
        case permissionDeniedError = 9
        case invalidFlexibleSyncSubscriptions = 10
        case writeRejected = 11
        case connectionFailed = 12
        case tlsHandshakeFailed = 13
        case serverWarning = 14
    }

    public let code: Code
    /// The server's (or the client's) message, without any log URL.
    public let message: String
    /// The writes the server reverted (`.writeRejected` only).
    public let compensatingWriteInfo: [CompensatingWriteInfo]?
    /// The server's log URL, when it sent one.
    public let serverLogURL: URL?
    /// Outpost-only: the protocol error code the server sent (for example 231, 212, 226), when there is one.
    public let protocolErrorCode: Int?
    /// Whether the error stopped the session for good (it is `.invalid` afterwards).
    public let isFatal: Bool
    /// For a manual client reset: where the file goes (``clientResetInfo()``).
    let actionToken: ActionToken?

    init(_ code: Code, _ message: String, compensatingWriteInfo: [CompensatingWriteInfo]? = nil, serverLogURL: URL? = nil,
         protocolErrorCode: Int? = nil, isFatal: Bool = false, actionToken: ActionToken? = nil) {
        self.code = code
        self.message = message
        self.compensatingWriteInfo = compensatingWriteInfo
        self.serverLogURL = serverLogURL
        self.protocolErrorCode = protocolErrorCode
        self.isFatal = isFatal
        self.actionToken = actionToken
    }

    public static var errorDomain: String { "io.realm.sync" }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let compensatingWriteInfo { info["Compensating Write Info"] = compensatingWriteInfo }
        if let serverLogURL { info["Server Log URL"] = serverLogURL }
        if let actionToken {
            info["error_action_token"] = actionToken
            if let backupPath = actionToken.backupPath { info["recovered_realm_location_path"] = backupPath }
        }
        return info
    }
    public var errorDescription: String? { message }
    public var localizedDescription: String { message }
    public var description: String { "SyncError(\(code), \"\(message)\")" }

    /// Whether the server asked for a client reset.
    public var isClientResetRequested: Bool { code == .clientResetError }

    // The codes as static members, as Realm's bridged error has them: `catch SyncError.clientResetError { … }`.
    public static let clientSessionError = Code.clientSessionError
    public static let clientUserError = Code.clientUserError
    public static let clientInternalError = Code.clientInternalError
    public static let clientResetError = Code.clientResetError
    public static let underlyingAuthError = Code.underlyingAuthError
    public static let permissionDeniedError = Code.permissionDeniedError
    public static let invalidFlexibleSyncSubscriptions = Code.invalidFlexibleSyncSubscriptions
    public static let writeRejected = Code.writeRejected
    public static let connectionFailed = Code.connectionFailed
    public static let tlsHandshakeFailed = Code.tlsHandshakeFailed
    public static let serverWarning = Code.serverWarning
}

extension SyncError.Code {
    /// Lets `catch SyncError.writeRejected { … }` match by code.
    public static func ~= (code: SyncError.Code, error: any Error) -> Bool {
        (error as? SyncError)?.code == code
    }
}

/// One write the server reverted with a compensating write: the object's class, primary key and the reason.
public final class CompensatingWriteInfo: @unchecked Sendable, CustomStringConvertible {
    /// The class of the object the client tried to write.
    public let objectType: String!
    /// The primary key of that object.
    public let primaryKey: AnyRealmValue
    /// Why the server refused the write (for debugging; not a stable contract).
    public let reason: String!

    init(objectType: String, primaryKey: AnyRealmValue, reason: String) {
        self.objectType = objectType
        self.primaryKey = primaryKey
        self.reason = reason
    }

    public var description: String {
        "CompensatingWriteInfo(objectType: \(objectType ?? ""), primaryKey: \(primaryKey), reason: \(reason ?? ""))"
    }
}
