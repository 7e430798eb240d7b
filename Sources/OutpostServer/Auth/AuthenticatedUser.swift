import OutpostCore

/// The user a request or connection acts for, resolved from a valid access token.
public struct AuthenticatedUser: Sendable, Hashable {
    public var appId: String
    public var userId: String
    /// Profile data (`%%user.data.*`).
    public var data: Document
    /// Custom user data (`%%user.custom_data.*`).
    public var customData: Document

    public init(appId: String, userId: String, data: Document = [:], customData: Document = [:]) {
        self.appId = appId
        self.userId = userId
        self.data = data
        self.customData = customData
    }
}
