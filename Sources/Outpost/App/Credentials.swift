import OutpostCore

/// How a user logs in, as Realm Swift's `Credentials`.
///
/// outpost-server supports ``anonymous``, ``emailPassword(email:password:)``, API keys (``userAPIKey(_:)``;
/// ``serverAPIKey(_:)`` logs in the same way) and ``jwt(token:)`` (its `custom_token` provider). The other providers
/// exist so Realm code compiles; logging in with one fails with ``AppError/Code-swift.enum/authProviderNotFound``
/// naming the provider.
public enum Credentials: Sendable {
    /// A Facebook access token (not supported by outpost-server).
    case facebook(accessToken: String)
    /// A Google server auth code (not supported by outpost-server).
    case google(serverAuthCode: String)
    /// A Google id token (not supported by outpost-server).
    case googleId(token: String)
    /// An Apple id token (not supported by outpost-server).
    case apple(idToken: String)
    /// An email/password user (register first with ``EmailPasswordAuth/registerUser(email:password:)``).
    case emailPassword(email: String, password: String)
    /// A JWT signed by the app's own identity provider (outpost-server's `custom_token` provider checks it; its
    /// `sub` claim names the user).
    case jwt(token: String)
    /// A custom function's payload (not supported by outpost-server).
    case function(payload: Document)
    /// A user API key.
    case userAPIKey(String)
    /// A server API key (outpost-server treats it as a user API key).
    case serverAPIKey(String)
    /// A new anonymous user.
    case anonymous

    /// The provider's name in App Services' URLs (`anon-user`, `local-userpass`, `api-key`, …).
    var provider: String {
        switch self {
        case .facebook: "oauth2-facebook"
        case .google, .googleId: "oauth2-google"
        case .apple: "oauth2-apple"
        case .emailPassword: "local-userpass"
        case .jwt: "custom-token"
        case .function: "custom-function"
        case .userAPIKey, .serverAPIKey: "api-key"
        case .anonymous: "anon-user"
        }
    }

    /// The login request's body, or nil when outpost-server has no such provider.
    var loginBody: JSONValue? {
        switch self {
        case .anonymous: .object([:])
        case .emailPassword(let email, let password):
            .object(["username": .string(email), "password": .string(password)])
        case .userAPIKey(let key), .serverAPIKey(let key): .object(["key": .string(key)])
        case .jwt(let token): .object(["token": .string(token)])
        case .facebook, .google, .googleId, .apple, .function: nil
        }
    }
}
