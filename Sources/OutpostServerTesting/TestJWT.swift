import Crypto
import Foundation
import OutpostCore

/// JWTs for tests of the `custom-token` provider: what an app's own identity provider would issue.
package enum TestJWT {
    /// A compact JWS of `claims` with `header`, signed by `sign` over "header.payload" (base64url, no padding).
    package static func token(_ claims: JSONValue, header: JSONValue = .object(["alg": "HS256", "typ": "JWT"]),
                             sign: ([UInt8]) -> [UInt8]) -> String {
        let input = base64URL(Array(header.text.utf8)) + "." + base64URL(Array(claims.text.utf8))
        return input + "." + base64URL(sign(Array(input.utf8)))
    }

    /// An HS256 token of `claims` signed with `secret`.
    package static func hs256(_ claims: JSONValue, secret: String) -> String {
        token(claims) { Array(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: Array(secret.utf8)))) }
    }

    /// Claims with `sub` and an `exp` `expiresIn` seconds from now, and `extra` ones.
    package static func claims(sub: String = "user-42", expiresIn: TimeInterval = 600,
                              extra: [String: JSONValue] = [:]) -> JSONValue {
        var fields: [String: JSONValue] = ["sub": .string(sub), "exp": .int(Int64(Date().timeIntervalSince1970 + expiresIn))]
        fields.merge(extra) { _, new in new }
        return .object(fields)
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
