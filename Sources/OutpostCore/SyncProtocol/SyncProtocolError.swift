/// An error of the sync protocol: a numeric code from the original protocol's table (so existing
/// error-handling code keeps working), and a message that says what was wrong and where.
///
/// Codes 100–199 are connection level (the connection is closed); 200–299 are session level (the session is
/// unbound, except 231 which only reports a compensating write). See `docs/protocol.md`.
public struct SyncProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: SyncErrorCode
    public var message: String

    public init(_ code: SyncErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (error_code=\(code.rawValue))" }
}

/// The original protocol's error codes that Outpost uses.
public struct SyncErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    /// True for codes 100–199, which close the whole connection.
    public var isConnectionLevel: Bool { (100..<200).contains(rawValue) }

    /// True for the codes after which the client must reset its file (the original's 208, 209, 210, 211, 217 and
    /// 222): the server sends them with the `ClientReset` action.
    public var requiresClientReset: Bool { [208, 209, 210, 211, 217, 222].contains(rawValue) }

    // Connection level.
    public static let connectionClosed = Self(rawValue: 100)
    public static let otherError = Self(rawValue: 101)
    public static let unknownMessage = Self(rawValue: 102)
    public static let badSyntax = Self(rawValue: 103)
    public static let limitsExceeded = Self(rawValue: 104)
    public static let wrongProtocolVersion = Self(rawValue: 105)
    public static let badSessionIdent = Self(rawValue: 106)
    public static let reuseOfSessionIdent = Self(rawValue: 107)
    public static let badMessageOrder = Self(rawValue: 109)
    public static let switchToFlexibleSync = Self(rawValue: 113)
    public static let switchToPartitionSync = Self(rawValue: 114)

    // Session level.
    public static let sessionClosed = Self(rawValue: 200)
    public static let otherSessionError = Self(rawValue: 201)
    public static let tokenExpired = Self(rawValue: 202)
    public static let badAuthentication = Self(rawValue: 203)
    public static let illegalRealmPath = Self(rawValue: 204)
    public static let permissionDenied = Self(rawValue: 206)
    public static let badClientFileIdent = Self(rawValue: 208)
    public static let badServerVersion = Self(rawValue: 209)
    public static let badClientVersion = Self(rawValue: 210)
    public static let badChangeset = Self(rawValue: 212)
    public static let userMismatch = Self(rawValue: 223)
    public static let invalidSchemaChange = Self(rawValue: 225)
    public static let badQuery = Self(rawValue: 226)
    public static let writeNotAllowed = Self(rawValue: 230)
    public static let compensatingWrite = Self(rawValue: 231)
}

/// What the client should do about an error, as the original's `error_action` strings.
public enum SyncErrorAction: String, Hashable, Sendable, Codable {
    case protocolViolation = "ProtocolViolation"
    case applicationBug = "ApplicationBug"
    case warning = "Warning"
    case transient = "Transient"
    case deleteRealm = "DeleteRealm"
    case clientReset = "ClientReset"
    case clientResetNoRecovery = "ClientResetNoRecovery"
    case refreshUser = "RefreshUser"
    case logOutUser = "LogOutUser"
}
