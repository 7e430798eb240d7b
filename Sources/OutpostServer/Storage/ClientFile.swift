/// A client's synced file as the server knows it: its identity, the salt that guards it, and its user.
public struct ClientFile: Sendable, Hashable, Codable {
    public var appId: String
    public var ident: Int64
    public var salt: Int64
    public var userId: String

    public init(appId: String, ident: Int64, salt: Int64, userId: String) {
        self.appId = appId
        self.ident = ident
        self.salt = salt
        self.userId = userId
    }
}
