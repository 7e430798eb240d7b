import Foundation

/// A user API key: only a hash of the key's secret is stored.
public struct StoredAPIKey: Sendable, Hashable, Codable {
    public var appId: String
    public var id: String
    public var userId: String
    public var name: String
    public var keyHash: String
    public var disabled: Bool
    public var createdAt: Date

    public init(
        appId: String, id: String, userId: String, name: String, keyHash: String, disabled: Bool = false,
        createdAt: Date = Date()
    ) {
        self.appId = appId
        self.id = id
        self.userId = userId
        self.name = name
        self.keyHash = keyHash
        self.disabled = disabled
        self.createdAt = createdAt
    }
}
