import Crypto
import Foundation
import _CryptoExtras

/// Hashes passwords with PBKDF2-HMAC-SHA256 and a random 16-byte salt, and verifies them in constant time.
///
/// The stored form is `pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`, so the iteration count can grow
/// without invalidating stored hashes.
public struct PasswordHasher: Sendable {
    /// The production iteration count (OWASP's minimum for PBKDF2-HMAC-SHA256 at the time of writing is 600,000;
    /// swift-crypto's checked API asks for at least 210,000).
    public static let defaultIterations = 210_000

    public let iterations: Int

    /// - Parameter iterations: the PBKDF2 rounds for new hashes. Production uses ``defaultIterations``; tests may
    ///   pass a small number so that they run fast.
    public init(iterations: Int = PasswordHasher.defaultIterations) {
        precondition(iterations > 0, "PBKDF2 needs at least one iteration")
        self.iterations = iterations
    }

    /// A new salted hash of `password`.
    public func hash(_ password: String) -> String {
        let salt = AuthRandom.bytes(16)
        let derived = Self.derive(password, salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(Data(salt).base64EncodedString())$\(Data(derived).base64EncodedString())"
    }

    /// Whether `password` matches a hash made by ``hash(_:)`` (with any iteration count). False for a malformed hash.
    public func verify(_ password: String, against encoded: String) -> Bool {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds > 0,
            rounds <= 10_000_000, let salt = Data(base64Encoded: String(parts[2])),
            let expected = Data(base64Encoded: String(parts[3])), expected.count == 32
        else { return false }
        let derived = Self.derive(password, salt: Array(salt), iterations: rounds)
        return constantTimeEquals(derived, expected)
    }

    private static func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32,
                unsafeUncheckedRounds: iterations)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            // BoringSSL's PBKDF2 fails only on allocation failure or invalid parameters, which we never pass.
            preconditionFailure("PBKDF2 failed: \(error)")
        }
    }
}
