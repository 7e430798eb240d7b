import Foundation

/// A refresh-token session: the refresh token's id, whose user it is and until when it is valid.
public struct StoredSession: Sendable, Hashable, Codable {
    public var appId: String
    public var id: String
    public var userId: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(appId: String, id: String, userId: String, createdAt: Date = Date(), expiresAt: Date) {
        self.appId = appId
        self.id = id
        self.userId = userId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
