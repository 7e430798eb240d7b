import Foundation
import OutpostCore

/// One identity of a ``User``: the auth provider and the provider's id of the user (Realm's `UserIdentity`). A user
/// has one per provider it logged in with or linked (``User/linkUser(credentials:)``).
public final class UserIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The provider: `anon-user`, `local-userpass`, `api-key`, `custom-token`.
    public let providerType: String
    /// The provider's id of the user (the email address for `local-userpass`).
    public let identifier: String

    public init(userIdentityWithProviderType providerType: String, identifier: String) {
        self.providerType = providerType
        self.identifier = identifier
    }

    /// Equal when provider and identifier are (Realm compares the objects).
    public static func == (lhs: UserIdentity, rhs: UserIdentity) -> Bool {
        lhs.providerType == rhs.providerType && lhs.identifier == rhs.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(providerType)
        hasher.combine(identifier)
    }

    public var description: String { "UserIdentity(\(providerType): \(identifier))" }

    /// The identities of a profile answer (`identities: [{id, provider_type}]`).
    static func list(inProfile profile: JSONValue?) -> [UserIdentity]? {
        guard case .array(let items)? = profile?.field("identities") else { return nil }
        return items.compactMap { item in
            guard let id = item.stringField("id"), let provider = item.stringField("provider_type") else { return nil }
            return UserIdentity(userIdentityWithProviderType: provider, identifier: id)
        }
    }

    var json: JSONValue { .object(["id": .string(identifier), "provider_type": .string(providerType)]) }
}
