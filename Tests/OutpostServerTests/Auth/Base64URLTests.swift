import Foundation
import Testing

@testable import OutpostServer

/// JWT segments are base64url without padding; decoding is strict (one spelling per byte string).
@Suite struct Base64URLTests {
    /// Foundation's base64 with the URL alphabet and no padding: the reference.
    static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func roundTripsEveryLengthLikeFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let text = Base64URL.encode(bytes)
                #expect(text == Self.reference(bytes))
                #expect(Base64URL.decode(Substring(text)) == bytes)
            }
        }
    }

    @Test func refusesNonCanonicalAndForeignText() {
        #expect(Base64URL.decode("QQ") == [65])
        #expect(Base64URL.decode("QR") == nil)  // unused low bits set
        #expect(Base64URL.decode("QUI") == [65, 66])
        #expect(Base64URL.decode("QUJ") == nil)
        #expect(Base64URL.decode("Q") == nil)  // a lone character holds no byte
        #expect(Base64URL.decode("QQ==") == nil)  // padding is not base64url
        #expect(Base64URL.decode("a+b/") == nil)  // the standard alphabet's characters
        #expect(Base64URL.decode("QUJD\u{0}") == nil)
        #expect(Base64URL.decode("QUJDé") == nil)
        #expect(Base64URL.decode("") == [])
    }
}
