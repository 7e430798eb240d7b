import Foundation
import OutpostCore

/// A user of an app as the server stores it.
public struct StoredUser: Sendable, Hashable, Codable {
    public var appId: String
    /// The user id (24 hex characters), as `%%user.id` in rules.
    public var id: String
    /// The auth provider: `anon-user`, `local-userpass` or `api-key`.
    public var provider: String
    /// The provider's identity: the email address for `local-userpass`, the user id for `anon-user`.
    public var identity: String
    /// The salted slow hash of the password (`local-userpass` only).
    public var passwordHash: String?
    /// False until an email/password user confirms (always true with auto-confirm).
    public var confirmed: Bool
    /// The confirmation token for unconfirmed users.
    public var confirmationToken: String?
    /// The hash of the password reset token requested last, while it is valid (see ``resetExpiresAt``).
    public var resetToken: String?
    /// When ``resetToken`` stops being accepted.
    public var resetExpiresAt: Date?
    /// Profile data, as `%%user.data.*` (for example `email`).
    public var data: Document
    /// Custom user data, as `%%user.custom_data.*`.
    public var customData: Document
    public var disabled: Bool
    public var createdAt: Date
    /// When the identity first logged in (nil before; rows written by older versions may lack it). An
    /// email/password identity that never logged in may still be linked to another user.
    public var firstLoginAt: Date?
    /// Set on an identity linked to another user (`User.linkUser(credentials:)`): the user its logins act for.
    /// The row keeps what the identity's provider needs (the password hash, the JWT's subject).
    public var linkedTo: String?
    /// The identities linked to this user, after its own (each is the row of that identity).
    public var linkedIdentities: [LinkedIdentity]?

    /// An identity of another provider linked to a user.
    public struct LinkedIdentity: Sendable, Hashable, Codable {
        /// The id of the identity's own row.
        public var rowId: String
        public var provider: String
        public var identity: String

        public init(rowId: String, provider: String, identity: String) {
            self.rowId = rowId
            self.provider = provider
            self.identity = identity
        }
    }

    public init(
        appId: String, id: String, provider: String, identity: String, passwordHash: String? = nil,
        confirmed: Bool = true, confirmationToken: String? = nil, data: Document = [:], customData: Document = [:],
        disabled: Bool = false, createdAt: Date = Date()
    ) {
        self.appId = appId
        self.id = id
        self.provider = provider
        self.identity = identity
        self.passwordHash = passwordHash
        self.confirmed = confirmed
        self.confirmationToken = confirmationToken
        self.data = data
        self.customData = customData
        self.disabled = disabled
        self.createdAt = createdAt
    }
}
