import Foundation
import OutpostCore
import _CryptoExtras

/// The RS256 keys of a JSON Web Key Set (RFC 7517), as identity providers publish them at their JWK URI:
/// `{"keys": [{"kty": "RSA", "kid": "…", "use": "sig", "alg": "RS256", "n": "…", "e": "…"}]}`.
///
/// Keys of other types, keys for encryption (`"use": "enc"`) and keys for other algorithms are left out; a set with
/// no usable key is refused.
struct JSONWebKeySet: Sendable {
    struct Key: Sendable {
        /// The key's `kid`, which a token's header names.
        var id: String?
        var publicKey: _RSA.Signing.PublicKey
    }

    /// Why a key set was refused.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    var keys: [Key]

    init(parsing text: String) throws(Invalid) {
        guard case .object(let root)? = JSONValue.parse(text) else {
            throw Invalid(description: "not a JSON object")
        }
        guard case .array(let entries)? = root["keys"] else {
            throw Invalid(description: "no \"keys\" array")
        }
        keys = entries.compactMap { entry in
            guard case .object(let fields) = entry, fields["kty"] == .string("RSA") else { return nil }
            if let use = fields["use"], use != .string("sig") { return nil }
            if let algorithm = fields["alg"], algorithm != .string("RS256") { return nil }
            guard case .string(let n)? = fields["n"], case .string(let e)? = fields["e"],
                let modulus = Base64URL.decode(Substring(n)), let exponent = Base64URL.decode(Substring(e)),
                let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
            else { return nil }
            var id: String?
            if case .string(let kid)? = fields["kid"] { id = kid }
            return Key(id: id, publicKey: key)
        }
        guard !keys.isEmpty else {
            throw Invalid(description: "no RSA signature key usable with RS256 among its \(entries.count) keys")
        }
    }

    /// The keys a token with this `kid` may be signed with: the key of that id, else the keys without an id (some
    /// providers publish none); every key when the token names none.
    func keys(for id: String?) -> [_RSA.Signing.PublicKey] {
        guard let id else { return keys.map(\.publicKey) }
        let named = keys.filter { $0.id == id }
        return (named.isEmpty ? keys.filter { $0.id == nil } : named).map(\.publicKey)
    }
}
