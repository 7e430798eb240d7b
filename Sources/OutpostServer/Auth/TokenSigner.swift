import Crypto
import Foundation
import OutpostCore

/// Issues and verifies compact JWS tokens (JWT, HS256) with one HMAC-SHA256 key.
public struct TokenSigner: Sendable {
    private let key: SymmetricKey

    /// - Parameter key: the signing key (32 bytes; see ``SigningKeyFile``).
    public init(key: SymmetricKey) {
        self.key = key
    }

    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    /// The signed token for `claims`.
    public func sign(_ claims: TokenClaims) -> String {
        let payload = Base64URL.encode(Array(claims.json.text.utf8))
        let input = "\(Self.header).\(payload)"
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: key)
        return "\(input).\(Base64URL.encode(Array(mac)))"
    }

    /// The claims of a token after checking, in order: its form, its signature, its kind, its app and its expiry.
    ///
    /// - Throws: ``AuthError`` with ``AuthError/Code/invalidToken``, ``AuthError/Code/invalidSignature``,
    ///   ``AuthError/Code/wrongApp`` or ``AuthError/Code/expiredToken``.
    public func verify(_ token: String, kind: TokenClaims.Kind, appId: String, now: Date) throws(AuthError) -> TokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            case .object(let header)? = JSONValue.parse(String(decoding: headerBytes, as: UTF8.self)),
            header["alg"] == .string("HS256"),
            let signature = Base64URL.decode(parts[2])
        else { throw AuthError(.invalidToken, "the token is not a well-formed HS256 JWT") }
        let input = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key) else {
            throw AuthError(.invalidSignature, "the token's signature does not verify")
        }
        guard let payloadBytes = Base64URL.decode(parts[1]),
            let json = JSONValue.parse(String(decoding: payloadBytes, as: UTF8.self)),
            let claims = TokenClaims(json: json)
        else { throw AuthError(.invalidToken, "the token's claims are malformed") }
        guard claims.kind == kind else {
            throw AuthError(.invalidToken, "expected an \(kind.rawValue) token, found a \(claims.kind.rawValue) token")
        }
        guard claims.appId == appId else {
            throw AuthError(.wrongApp, "the token was issued for another app")
        }
        guard claims.expiresAt > now else {
            throw AuthError(.expiredToken, "the \(kind.rawValue) token expired")
        }
        return claims
    }
}
