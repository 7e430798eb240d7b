import Foundation
import OutpostCore

/// What the client reads from an access token (a JWT) without verifying it: its expiry.
enum AccessTokenClaims {
    /// The token's `exp` claim, or nil when the token is not a readable JWT.
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let json = JSONValue.parse(String(decoding: data, as: UTF8.self))
        else { return nil }
        switch json.field("exp") {
        case .int(let seconds)?: return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .double(let seconds)?: return Date(timeIntervalSince1970: seconds)
        default: return nil
        }
    }
}
