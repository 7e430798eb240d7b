import Foundation

/// Random bytes and their text forms for salts, keys and tokens.
enum AuthRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func hex(_ count: Int) -> String {
        bytes(count).hexString
    }
}

extension Sequence<UInt8> {
    var hexString: String {
        map { byte in
            let s = String(byte, radix: 16)
            return byte < 16 ? "0" + s : s
        }.joined()
    }
}

/// Compares two byte strings in time that depends only on their lengths.
func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}

/// Base64url without padding (RFC 4648 §5), as JWTs use.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's value in the alphabet, 255 for bytes outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// Unpadded base64url (RFC 4648 §5), written directly: every token check encodes and decodes a signature.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(n >> UInt32(shift) & 63)]) }
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of canonical base64url text, else nil: the unused low bits of the last character must be zero
    /// (RFC 4648 §3.5), so one token has one spelling and an altered signature never verifies.
    static func decode(_ text: Substring) -> [UInt8]? {
        var sextets: [UInt8] = []
        sextets.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            let value = values[Int(byte)]
            guard value != 255 else { return nil }
            sextets.append(value)
        }
        let rest = sextets.count % 4
        guard rest != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(sextets.count * 3 / 4)
        var i = 0
        while i + 4 <= sextets.count {
            let n = UInt32(sextets[i]) << 18 | UInt32(sextets[i + 1]) << 12 | UInt32(sextets[i + 2]) << 6 | UInt32(sextets[i + 3])
            out += [UInt8(n >> 16), UInt8(n >> 8 & 255), UInt8(n & 255)]
            i += 4
        }
        if rest == 2 {
            guard sextets[i + 1] & 0b1111 == 0 else { return nil }
            out.append(sextets[i] << 2 | sextets[i + 1] >> 4)
        } else if rest == 3 {
            guard sextets[i + 2] & 0b11 == 0 else { return nil }
            let n = UInt32(sextets[i]) << 12 | UInt32(sextets[i + 1]) << 6 | UInt32(sextets[i + 2])
            out += [UInt8(n >> 10), UInt8(n >> 2 & 255)]
        }
        return out
    }
}
