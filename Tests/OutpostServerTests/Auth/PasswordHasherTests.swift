import OutpostServer
import Testing

@Suite struct PasswordHasherTests {
    let hasher = PasswordHasher(iterations: 1_000)

    @Test func hashesAreSaltedAndVerify() {
        let first = hasher.hash("correct horse")
        let second = hasher.hash("correct horse")
        #expect(first != second)
        #expect(first.hasPrefix("pbkdf2-sha256$1000$"))
        #expect(first.split(separator: "$").count == 4)
        #expect(!first.contains("correct horse"))
        #expect(hasher.verify("correct horse", against: first))
        #expect(hasher.verify("correct horse", against: second))
        #expect(!hasher.verify("correct horsf", against: first))
        #expect(!hasher.verify("", against: first))
    }

    @Test func verifiesHashesMadeWithAnotherIterationCount() {
        let old = PasswordHasher(iterations: 10).hash("secret1")
        #expect(hasher.verify("secret1", against: old))
    }

    @Test func knownVector() {
        // RFC 7914 §11 PBKDF2-HMAC-SHA256 test vector: P="passwd", S="salt", c=1, dkLen=64 (first 32 bytes).
        let encoded = "pbkdf2-sha256$1$c2FsdA==$VawEblbjCJ/sFpHCJUS2BflBhSFt3gRl5oudV8INrLw="
        #expect(hasher.verify("passwd", against: encoded))
    }

    @Test(arguments: [
        "", "plain", "pbkdf2-sha256$x$c2FsdA==$AAAA", "md5$1$c2FsdA==$AAAA", "pbkdf2-sha256$1$!!$AAAA",
        "pbkdf2-sha256$0$c2FsdA==$VawEblbjCJ/sFpHCJUS2BflBhSFt3gRl5oudV8INrLw=",
    ])
    func malformedHashesNeverVerify(_ encoded: String) {
        #expect(!hasher.verify("passwd", against: encoded))
    }

    @Test func theAsyncFormsAgreeAndNoHashStillCostsADerivation() async throws {
        let hasher = PasswordHasher(iterations: 1_000)
        let hash = try await hasher.hashInPool("correct horse")
        #expect(hasher.verify("correct horse", against: hash))
        #expect(try await hasher.verifyInPool("correct horse", against: hash))
        #expect(try await !hasher.verifyInPool("wrong horse", against: hash))
        let before = hasher.derivations
        #expect(try await !hasher.verifyInPool("correct horse", against: nil))
        #expect(hasher.derivations == before + 1, "no hash costs the same derivation as a wrong password")
    }

    @Test func productionDefaultIsAtLeast100k() {
        #expect(PasswordHasher().iterations >= 100_000)
    }
}
