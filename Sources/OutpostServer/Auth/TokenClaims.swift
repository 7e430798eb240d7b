import Foundation
import OutpostCore

/// The claims of an Outpost access or refresh token.
///
/// | claim | meaning |
/// |---|---|
/// | `sub` | the user id |
/// | `app_id` | the app the token is for |
/// | `typ` | `access` or `refresh` |
/// | `iat`, `exp` | issued-at and expiry, seconds since 1970 |
/// | `sid` | refresh tokens: the session id stored with `insertSession` |
/// | `user_data` | access tokens: the user's profile data (Extended JSON) |
public struct TokenClaims: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case access, refresh
    }

    public var userId: String
    public var appId: String
    public var kind: Kind
    public var issuedAt: Date
    public var expiresAt: Date
    /// The refresh session (refresh tokens only).
    public var sessionId: String?
    /// The user's profile data (access tokens only).
    public var userData: Document

    public init(
        userId: String, appId: String, kind: Kind, issuedAt: Date, expiresAt: Date, sessionId: String? = nil,
        userData: Document = [:]
    ) {
        self.userId = userId
        self.appId = appId
        self.kind = kind
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.sessionId = sessionId
        self.userData = userData
    }

    var json: JSONValue {
        var fields: [String: JSONValue] = [
            "sub": .string(userId), "app_id": .string(appId), "typ": .string(kind.rawValue),
            "iat": .int(Int64(issuedAt.timeIntervalSince1970.rounded(.down))),
            "exp": .int(Int64(expiresAt.timeIntervalSince1970.rounded(.down))),
        ]
        if let sessionId { fields["sid"] = .string(sessionId) }
        if kind == .access { fields["user_data"] = userData.extendedJSON }
        return .object(fields)
    }

    init?(json: JSONValue) {
        guard case .object(let fields) = json,
            case .string(let sub)? = fields["sub"], case .string(let appId)? = fields["app_id"],
            case .string(let typ)? = fields["typ"], let kind = Kind(rawValue: typ),
            case .int(let iat)? = fields["iat"], case .int(let exp)? = fields["exp"]
        else { return nil }
        var sessionId: String?
        if let sid = fields["sid"] {
            guard case .string(let s) = sid else { return nil }
            sessionId = s
        }
        var data: Document = [:]
        if let userData = fields["user_data"] {
            guard let document = try? Document(extendedJSON: userData) else { return nil }
            data = document
        }
        self.init(
            userId: sub, appId: appId, kind: kind, issuedAt: Date(timeIntervalSince1970: TimeInterval(iat)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(exp)), sessionId: sessionId, userData: data)
    }
}
