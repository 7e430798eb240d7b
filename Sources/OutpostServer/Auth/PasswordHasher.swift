import Crypto
import Foundation
import Synchronization
import _CryptoExtras

/// Hashes passwords with PBKDF2-HMAC-SHA256 and a random 16-byte salt, and verifies them in constant time.
///
/// The stored form is `pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`, so the iteration count can grow
/// without invalidating stored hashes. The server calls the `async` forms, which run on a ``PasswordHashingPool``:
/// PBKDF2 takes tens of milliseconds of CPU by design, and on Swift's cooperative pool it would stall every request.
public struct PasswordHasher: Sendable {
    /// The production iteration count (OWASP's minimum for PBKDF2-HMAC-SHA256 at the time of writing is 600,000;
    /// swift-crypto's checked API asks for at least 210,000).
    public static let defaultIterations = 210_000

    public let iterations: Int
    /// Where the `async` forms run.
    public let pool: PasswordHashingPool
    private let counter = DerivationCounter()

    /// - Parameters:
    ///   - iterations: the PBKDF2 rounds for new hashes. Production uses ``defaultIterations``; tests may pass a small
    ///     number so that they run fast.
    ///   - pool: the threads the `async` forms run on.
    public init(iterations: Int = PasswordHasher.defaultIterations, pool: PasswordHashingPool = .shared) {
        precondition(iterations > 0, "PBKDF2 needs at least one iteration")
        self.iterations = iterations
        self.pool = pool
    }

    /// How many PBKDF2 derivations this hasher (and its copies) has started: lets tests check that every login
    /// attempt costs the same work and that a refused one costs none.
    public var derivations: Int { counter.value.load(ordering: .relaxed) }

    /// A new salted hash of `password`, computed on the calling thread.
    public func hash(_ password: String) -> String {
        let salt = AuthRandom.bytes(16)
        let derived = derive(password, salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(Data(salt).base64EncodedString())$\(Data(derived).base64EncodedString())"
    }

    /// Whether `password` matches a hash made by ``hash(_:)`` (with any iteration count), computed on the calling
    /// thread. False for a malformed hash.
    public func verify(_ password: String, against encoded: String) -> Bool {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds > 0,
            rounds <= 10_000_000, let salt = Data(base64Encoded: String(parts[2])),
            let expected = Data(base64Encoded: String(parts[3])), expected.count == 32
        else { return false }
        let derived = derive(password, salt: Array(salt), iterations: rounds)
        return constantTimeEquals(derived, expected)
    }

    /// ``hash(_:)`` on the hashing pool.
    ///
    /// - Throws: ``AuthError/Code/hashingBusy`` when the pool's queue is full.
    public func hashInPool(_ password: String) async throws -> String {
        let hasher = self
        return try await pool.run { hasher.hash(password) }
    }

    /// ``verify(_:against:)`` on the hashing pool; with `encoded` nil (no such user), the same work against a hash
    /// nothing matches, so that an unknown account costs as much time as a wrong password.
    ///
    /// - Throws: ``AuthError/Code/hashingBusy`` when the pool's queue is full.
    public func verifyInPool(_ password: String, against encoded: String?) async throws -> Bool {
        let (hasher, target) = (self, encoded ?? decoy)
        let matches = try await pool.run { hasher.verify(password, against: target) }
        return matches && encoded != nil
    }

    /// A well-formed hash at the current iteration count; its all-zero derived key is, in practice, never produced.
    private var decoy: String {
        "pbkdf2-sha256$\(iterations)$\(Data(count: 16).base64EncodedString())$\(Data(count: 32).base64EncodedString())"
    }

    private func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        counter.value.add(1, ordering: .relaxed)
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

/// The shared count behind ``PasswordHasher/derivations`` (a class so that copies of the hasher count together).
private final class DerivationCounter: Sendable {
    let value = Atomic<Int>(0)
}
