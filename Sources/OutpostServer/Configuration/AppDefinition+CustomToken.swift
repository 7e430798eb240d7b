import Foundation
import OutpostCore
import _CryptoExtras

extension AppDefinition {
    /// The `custom-token` auth provider (App Services' Custom JWT authentication): a client logs in with a JWT that
    /// the app's own identity provider signed; its `sub` claim is the user's identity.
    ///
    /// ```json
    /// "custom_token": { "enabled": true, "signing_algorithm": "RS256", "public_key": "-----BEGIN PUBLIC KEY-----…",
    ///                   "audience": ["my-app"],
    ///                   "metadata_fields": [{ "name": "email", "field_name": "email", "required": true }] }
    /// ```
    public struct CustomToken: Sendable, Hashable {
        public enum Algorithm: String, Sendable, Hashable, CaseIterable {
            /// HMAC-SHA256 with a shared secret (`signing_keys`).
            case hs256 = "HS256"
            /// RSA PKCS#1 v1.5 with SHA-256, checked with the provider's public key (`public_key`, PEM).
            case rs256 = "RS256"
        }

        /// A JWT claim copied into the user's profile data (`%%user.data.<fieldName>`) at each login.
        public struct MetadataField: Sendable, Hashable {
            /// The claim's path in the token's payload (`email`, `profile.name`).
            public var name: String
            /// The name in the user's data (default: the path's last component).
            public var fieldName: String
            /// A token without the claim is refused.
            public var required: Bool

            public init(name: String, fieldName: String? = nil, required: Bool = false) {
                self.name = name
                self.fieldName = fieldName ?? String(name.split(separator: ".").last ?? Substring(name))
                self.required = required
            }
        }

        public var algorithm: Algorithm
        /// HS256: the secrets a token may be signed with (several while a key is rotated).
        public var signingKeys: [String]
        /// RS256: the provider's public key, PEM.
        public var publicKey: String?
        /// RS256: where the provider publishes its public keys, a JSON Web Key Set (`jwk_uri`, App Services'
        /// "Use JWK URI"); instead of ``publicKey``. A token's `kid` header picks the key. See ``JSONWebKeySource``.
        public var jwkURI: String?
        /// When not empty, the token's `aud` must name one of these.
        public var audience: [String]
        public var metadataFields: [MetadataField]

        public init(algorithm: Algorithm = .hs256, signingKeys: [String] = [], publicKey: String? = nil,
                    audience: [String] = [], metadataFields: [MetadataField] = [], jwkURI: String? = nil) {
            self.algorithm = algorithm
            self.signingKeys = signingKeys
            self.publicKey = publicKey
            self.jwkURI = jwkURI
            self.audience = audience
            self.metadataFields = metadataFields
        }

        init(_ reader: ConfigurationReader) throws(ConfigurationError) {
            try reader.rejectUnknownFields([
                "enabled", "signing_algorithm", "signing_keys", "public_key", "jwk_uri", "audience", "metadata_fields",
            ])
            jwkURI = try reader.string("jwk_uri")
            // A JWK URI gives RS256 keys, so it makes RS256 the default.
            let name = try reader.string("signing_algorithm") ?? (jwkURI == nil ? Algorithm.hs256 : .rs256).rawValue
            guard let algorithm = Algorithm(rawValue: name) else {
                throw ConfigurationError(.invalidValue, path: reader.path(of: "signing_algorithm"),
                                         "expected \"HS256\" or \"RS256\", found \"\(name)\"")
            }
            self.algorithm = algorithm
            signingKeys = try reader.stringArray("signing_keys")
            publicKey = try reader.string("public_key")
            if case .string(let one)? = reader.value("audience") {
                audience = [one]
            } else {
                audience = try reader.stringArray("audience")
            }
            metadataFields = []
            if let fields = reader.value("metadata_fields") {
                guard case .array(let items) = fields else {
                    throw reader.wrongType("metadata_fields", "an array", fields)
                }
                for (i, item) in items.enumerated() {
                    let field = try ConfigurationReader(item, path: reader.path(of: "metadata_fields[\(i)]"))
                    try field.rejectUnknownFields(["name", "field_name", "required"])
                    metadataFields.append(MetadataField(
                        name: try field.requiredString("name"), fieldName: try field.string("field_name"),
                        required: try field.bool("required", default: false)))
                }
            }
            switch algorithm {
            case .hs256:
                guard jwkURI == nil else {
                    throw ConfigurationError(.invalidValue, path: reader.path(of: "signing_algorithm"),
                                             "a jwk_uri publishes RS256 keys; HS256 cannot use it")
                }
                guard !signingKeys.isEmpty, signingKeys.allSatisfy({ !$0.isEmpty }) else {
                    throw ConfigurationError(.missingField, path: reader.path(of: "signing_keys"),
                                             "HS256 needs at least one non-empty signing key")
                }
            case .rs256:
                if let jwkURI {
                    guard publicKey == nil else {
                        throw ConfigurationError(.invalidValue, path: reader.path(of: "public_key"),
                                                 "give either public_key or jwk_uri, not both")
                    }
                    guard AppDefinition.isHTTPSOrLoopback(jwkURI) else {
                        // Keys fetched over plain HTTP could be replaced on the way, and with them any user forged.
                        throw ConfigurationError(.invalidValue, path: reader.path(of: "jwk_uri"),
                            "expected an https URL (http only on a loopback address), found \"\(jwkURI)\"")
                    }
                    break
                }
                guard let publicKey else {
                    throw ConfigurationError(.missingField, path: reader.path(of: "public_key"),
                                             "RS256 needs the identity provider's public key (PEM) or its jwk_uri")
                }
                do {
                    _ = try _RSA.Signing.PublicKey(pemRepresentation: publicKey)
                } catch {
                    throw ConfigurationError(.invalidValue, path: reader.path(of: "public_key"),
                                             "not an RSA public key in PEM form of 2048 bits or more: \(error)")
                }
            }
        }

        /// The provider's settings as a configuration file's JSON.
        var json: JSONValue {
            var out: [String: JSONValue] = [
                "enabled": .bool(true), "signing_algorithm": .string(algorithm.rawValue),
                "metadata_fields": .array(metadataFields.map { field in
                    .object(["name": .string(field.name), "field_name": .string(field.fieldName),
                             "required": .bool(field.required)])
                }),
            ]
            if !signingKeys.isEmpty { out["signing_keys"] = .array(signingKeys.map(JSONValue.string)) }
            if let publicKey { out["public_key"] = .string(publicKey) }
            if let jwkURI { out["jwk_uri"] = .string(jwkURI) }
            if !audience.isEmpty { out["audience"] = .array(audience.map(JSONValue.string)) }
            return .object(out)
        }
    }
}
