import Crypto
import Foundation
import OutpostCore
import _CryptoExtras

/// Checks a JWT for the `custom-token` provider (``AppDefinition/CustomToken``): its form, its algorithm, its
/// signature, its time claims (`exp` required, `nbf` honoured) and its audience; then reads its `sub` and metadata
/// fields. Every refusal is an ``AuthError`` whose message says what was wrong, never the token itself.
struct CustomTokenVerifier {
    let settings: AppDefinition.CustomToken

    /// What a valid token says about its user.
    struct Verified {
        /// The `sub` claim: the user's identity at the provider.
        var subject: String
        /// The metadata fields found, by their names in the user's data.
        var metadata: Document
    }

    /// How far a token's `exp` and `nbf` may be off the server's clock (as App Services, a little leeway).
    static let clockSkew: TimeInterval = 60

    /// A token of the right form and algorithm, not yet checked any further.
    struct Parsed {
        var claims: [String: JSONValue]
        var signature: [UInt8]
        /// "header.payload", what the signature signs.
        var input: [UInt8]
        /// The header's `kid`: which of the provider's keys signed it.
        var keyId: String?
    }

    /// Checks the token's form and algorithm (before anything is fetched for it).
    func parse(_ token: String) throws(AuthError) -> Parsed {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            case .object(let header)? = JSONValue.parse(String(decoding: headerBytes, as: UTF8.self)),
            let signature = Base64URL.decode(parts[2]),
            let payloadBytes = Base64URL.decode(parts[1]),
            case .object(let claims)? = JSONValue.parse(String(decoding: payloadBytes, as: UTF8.self))
        else { throw AuthError(.invalidToken, "invalid custom auth token: not a well-formed JWT") }
        guard case .string(let algorithm)? = header["alg"], algorithm == settings.algorithm.rawValue else {
            throw AuthError(.invalidToken,
                "invalid custom auth token: expected an \(settings.algorithm.rawValue) token, found \(Self.describe(header["alg"]))")
        }
        let input = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        var keyId: String?
        if case .string(let kid)? = header["kid"] { keyId = kid }
        return Parsed(claims: claims, signature: signature, input: input, keyId: keyId)
    }

    /// Checks a token with the configured keys (the HS256 secrets, or the RS256 public key of the file).
    func verify(_ token: String, now: Date) throws(AuthError) -> Verified {
        let rsaKeys = settings.publicKey.flatMap { try? _RSA.Signing.PublicKey(pemRepresentation: $0) }.map { [$0] } ?? []
        return try verify(try parse(token), now: now, rsaKeys: rsaKeys)
    }

    /// Checks a parsed token's signature (RS256: with any of `rsaKeys`), time claims, audience, subject and
    /// metadata fields.
    func verify(_ token: Parsed, now: Date, rsaKeys: [_RSA.Signing.PublicKey]) throws(AuthError) -> Verified {
        let claims = token.claims
        guard isValidSignature(token.signature, for: token.input, rsaKeys: rsaKeys) else {
            throw AuthError(.invalidSignature, "invalid custom auth token: the signature does not verify")
        }
        guard let exp = Self.seconds(claims["exp"]) else {
            throw AuthError(.invalidToken, "invalid custom auth token: the 'exp' claim is missing or not a number")
        }
        guard Date(timeIntervalSince1970: exp + Self.clockSkew) > now else {
            throw AuthError(.expiredToken, "invalid custom auth token: the token expired")
        }
        if let nbf = claims["nbf"] {
            guard let notBefore = Self.seconds(nbf) else {
                throw AuthError(.invalidToken, "invalid custom auth token: the 'nbf' claim is not a number")
            }
            guard Date(timeIntervalSince1970: notBefore - Self.clockSkew) <= now else {
                throw AuthError(.invalidToken, "invalid custom auth token: the token is not valid yet ('nbf')")
            }
        }
        if !settings.audience.isEmpty {
            let audiences: [String]
            switch claims["aud"] {
            case .string(let one)?: audiences = [one]
            case .array(let many)?: audiences = many.compactMap { if case .string(let s) = $0 { s } else { nil } }
            default: audiences = []
            }
            guard audiences.contains(where: settings.audience.contains) else {
                throw AuthError(.invalidToken,
                    "invalid custom auth token: the 'aud' claim names none of the app's audiences")
            }
        }
        guard case .string(let subject)? = claims["sub"], !subject.isEmpty, subject.utf8.count <= 256 else {
            throw AuthError(.invalidToken, "invalid custom auth token: the 'sub' claim is missing, empty or too long")
        }
        var metadata = Document()
        for field in settings.metadataFields {
            guard let value = Self.claim(field.name, in: claims), value != .null else {
                if field.required {
                    throw AuthError(.invalidToken,
                        "invalid custom auth token: the required metadata field '\(field.name)' is missing")
                }
                continue
            }
            // A claim is plain JSON; one that is not valid Extended JSON (a `$` key) is kept as its text.
            metadata[field.fieldName] = (try? Value(extendedJSON: value)) ?? .string(value.text)
        }
        return Verified(subject: subject, metadata: metadata)
    }

    private func isValidSignature(_ signature: [UInt8], for input: [UInt8], rsaKeys: [_RSA.Signing.PublicKey]) -> Bool {
        switch settings.algorithm {
        case .hs256:
            return settings.signingKeys.contains { secret in
                HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input,
                                                       using: SymmetricKey(data: Array(secret.utf8)))
            }
        case .rs256:
            let digest = SHA256.hash(data: input)
            return rsaKeys.contains { key in
                key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: digest,
                                     padding: .insecurePKCS1v1_5)
            }
        }
    }

    /// A NumericDate claim in seconds.
    private static func seconds(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case .int(let i)?: TimeInterval(i)
        case .double(let d)? where d.isFinite: d
        default: nil
        }
    }

    /// The claim at a dotted path (`profile.name`).
    private static func claim(_ path: String, in claims: [String: JSONValue]) -> JSONValue? {
        var current: JSONValue = .object(claims)
        for key in path.split(separator: ".") {
            guard case .object(let fields) = current, let next = fields[String(key)] else { return nil }
            current = next
        }
        return current
    }

    private static func describe(_ value: JSONValue?) -> String {
        if case .string(let s)? = value { return "'\(s)'" }
        return "no algorithm"
    }
}
