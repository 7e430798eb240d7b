import Crypto
import Foundation
import OutpostCore
import OutpostServer
import Testing

@Suite struct TokenSignerTests {
    let signer = TokenSigner(key: SymmetricKey(size: .bits256))
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    func claims(_ kind: TokenClaims.Kind = .access, app: String = "app", lifetime: TimeInterval = 60) -> TokenClaims {
        TokenClaims(
            userId: "u1", appId: app, kind: kind, issuedAt: now, expiresAt: now + lifetime,
            sessionId: kind == .refresh ? "s1" : nil, userData: kind == .access ? ["email": "a@b.co"] : [:])
    }

    func code(_ body: () throws -> Void) -> AuthError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? AuthError)?.code ?? AuthError.Code(rawValue: "not an AuthError: \(error)")
        }
    }

    @Test func signsAndVerifies() throws {
        let token = signer.sign(claims())
        #expect(token.split(separator: ".").count == 3)
        let verified = try signer.verify(token, kind: .access, appId: "app", now: now)
        #expect(verified == claims())
        let refresh = try signer.verify(signer.sign(claims(.refresh)), kind: .refresh, appId: "app", now: now)
        #expect(refresh.sessionId == "s1")
    }

    @Test func theHeaderIsHS256JWT() throws {
        let header = try #require(signer.sign(claims()).split(separator: ".").first)
        let padded = header + String(repeating: "=", count: (4 - header.count % 4) % 4)
        let json = try #require(Data(base64Encoded: String(padded)))
        #expect(JSONValue.parse(String(decoding: json, as: UTF8.self)) == .object(["alg": "HS256", "typ": "JWT"]))
    }

    @Test func rejectsExpiredTokens() {
        let token = signer.sign(claims(lifetime: 60))
        #expect(code { _ = try signer.verify(token, kind: .access, appId: "app", now: now + 59) } == nil)
        #expect(code { _ = try signer.verify(token, kind: .access, appId: "app", now: now + 60) } == .expiredToken)
    }

    @Test func rejectsForgedTokens() {
        let token = signer.sign(claims())
        let other = TokenSigner(key: SymmetricKey(size: .bits256)).sign(claims())
        #expect(code { _ = try signer.verify(other, kind: .access, appId: "app", now: now) } == .invalidSignature)
        // Same header and signature, payload changed to another user.
        var parts = token.split(separator: ".").map(String.init)
        let forgedPayload = TokenClaims(
            userId: "admin", appId: "app", kind: .access, issuedAt: now, expiresAt: now + 60)
        parts[1] = String(TokenSigner(key: SymmetricKey(size: .bits256)).sign(forgedPayload).split(separator: ".")[1])
        #expect(code { _ = try signer.verify(parts.joined(separator: "."), kind: .access, appId: "app", now: now) } == .invalidSignature)
    }

    @Test func rejectsWrongKindAndApp() {
        #expect(code { _ = try signer.verify(signer.sign(claims(.refresh)), kind: .access, appId: "app", now: now) } == .invalidToken)
        #expect(code { _ = try signer.verify(signer.sign(claims()), kind: .refresh, appId: "app", now: now) } == .invalidToken)
        #expect(code { _ = try signer.verify(signer.sign(claims(app: "other")), kind: .access, appId: "app", now: now) } == .wrongApp)
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c", "a.b.c.d", "eyJhbGciOiJub25lIn0.e30.", "!!.!!.!!"])
    func rejectsMalformedTokens(_ token: String) {
        #expect(code { _ = try signer.verify(token, kind: .access, appId: "app", now: now) } == .invalidToken)
    }
}
