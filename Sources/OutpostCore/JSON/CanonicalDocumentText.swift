import Foundation

/// Decides, while a reader reads a document's fields one by one, whether the document's bytes are already the exact
/// Extended JSON text the server stores for it (``Document/extendedJSONText``: keys sorted, no white space, strings
/// escaped as `JSONValue.writeString` escapes them, values in the forms `Value.writeExtendedJSON` writes). When they
/// are, the server keeps those bytes as the document's text instead of writing the document again.
///
/// Outpost's clients send events and created objects in that form. Anything else — another key order, white
/// space, a different escape, a non-ASCII key, a number written another way, invalid UTF-8, a value of a type
/// not checked here (nested documents, arrays, doubles, …) — only means the text is written from the document.
package struct CanonicalDocumentText {
    package private(set) var isCanonical = true
    /// Bytes of the tokens seen, separators included; the document's slice must be exactly this long (no white
    /// space).
    private var length = 2  // the braces
    private var fields = 0
    /// The previous key's characters (inside its quotes), as a range of the bytes.
    private var previousKey: Range<Int>?

    package init() {}

    /// Notes a field: its key literal and its value's literal, as byte ranges of `bytes`, and the value read.
    package mutating func field(key: Range<Int>, value: Range<Int>, parsed: Value, in bytes: [UInt8]) {
        guard isCanonical else { return }
        fields += 1
        length += key.count + 1 + value.count + (fields > 1 ? 1 : 0)
        let keyCharacters = (key.lowerBound + 1)..<(key.upperBound - 1)
        let canonical = bytes.withUnsafeBufferPointer { bytes -> Bool in
            // The key: plain ASCII without escapes, after the previous one in byte order (the order `String`
            // sorts ASCII in).
            for i in keyCharacters where bytes[i] < 0x20 || bytes[i] >= 0x80 || bytes[i] == 0x5C { return false }
            if let previous = previousKey, !Self.precedes(previous, keyCharacters, in: bytes) { return false }
            return Self.isCanonical(parsed, UnsafeBufferPointer(rebasing: bytes[value]))
        }
        if canonical { previousKey = keyCharacters } else { isCanonical = false }
    }

    /// Whether a value's literal is what `Value.writeExtendedJSON` writes for it.
    private static func isCanonical(_ parsed: Value, _ literal: UnsafeBufferPointer<UInt8>) -> Bool {
        switch parsed {
        case .null, .bool:
            return true  // "null", "true" and "false" are the only ways to write them
        case .int(let v):
            // The digits `JSONValue.writeInt` writes: the same number, without a sign or zeros in front.
            return literal.count == decimalLength(v) && integer(literal) == v
        case .string:
            return isCanonicalString(literal)
        case .objectId:
            // {"$oid":"<24 lowercase hex digits>"}: any other length means white space or other digits.
            guard literal.count == 35, hasAffixes(literal, #"{"$oid":""#, #""}"#) else { return false }
            for c in literal[9..<33] {
                guard (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) else { return false }
            }
            return true
        case .date(let date):
            // {"$date":{"$numberLong":"<ms>"}} with the digits the server writes for the date: the same number
            // (a date far out of range is written as another), without a sign or zeros in front.
            guard literal.count > 28, hasAffixes(literal, #"{"$date":{"$numberLong":""#, #""}}"#) else { return false }
            let digits = UnsafeBufferPointer(rebasing: literal[25..<(literal.count - 3)])
            let milliseconds = date.millisecondsSince1970
            return digits.count == decimalLength(milliseconds) && integer(digits) == milliseconds
        default:
            return false
        }
    }

    /// Whether a literal starts with `prefix` and ends with `suffix`, which do not overlap in it.
    private static func hasAffixes(_ literal: UnsafeBufferPointer<UInt8>, _ prefix: StaticString, _ suffix: StaticString) -> Bool {
        let (p, s) = (prefix.utf8CodeUnitCount, suffix.utf8CodeUnitCount)
        guard literal.count >= p + s else { return false }
        let base = literal.baseAddress!
        return memcmp(base, prefix.utf8Start, p) == 0 && memcmp(base + literal.count - s, suffix.utf8Start, s) == 0
    }

    /// Whether the bytes of `a` come before those of `b`.
    private static func precedes(_ a: Range<Int>, _ b: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(a.count, b.count)
        for k in 0..<common where bytes[a.lowerBound + k] != bytes[b.lowerBound + k] {
            return bytes[a.lowerBound + k] < bytes[b.lowerBound + k]
        }
        return a.count < b.count
    }

    /// The decimal integer the bytes spell (an optional minus and digits), or nil.
    private static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !text.isEmpty else { return nil }
        let negative = text[0] == UInt8(ascii: "-")
        var magnitude: UInt64 = 0
        for c in text.dropFirst(negative ? 1 : 0) {
            guard c >= 0x30, c <= 0x39 else { return nil }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(c - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        guard negative else { return Int64(exactly: magnitude) }
        guard magnitude <= Int64.min.magnitude else { return nil }
        return Int64(truncatingIfNeeded: 0 &- magnitude)  // two's complement: -magnitude, Int64.min included
    }

    /// How many characters `String(n)` has.
    private static func decimalLength(_ n: Int64) -> Int {
        var length = n < 0 ? 2 : 1
        var rest = n.magnitude / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        return length
    }

    /// The stored text of the document whose object literal is `range`, when it is canonical; else nil.
    package func text(of range: Range<Int>, in bytes: [UInt8]) -> String? {
        guard isCanonical, range.count == length else { return nil }
        return String(decoding: bytes[range], as: UTF8.self)
    }

    /// Whether a string literal (quotes included) is what `JSONValue.writeString` writes for its value: escapes
    /// only `\"`, `\\`, `\n`, `\r`, `\t` and `\u00xx` (lowercase) for the other control characters, no raw control
    /// character, valid UTF-8.
    package static func isCanonicalString(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 2 else { return false }
        var i = 1
        let end = bytes.count - 1
        var ascii = true
        while i < end {
            let byte = bytes[i]
            if byte >= 0x80 {
                ascii = false
                i += 1
            } else if byte == 0x5C {
                guard i + 1 < end else { return false }
                switch bytes[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 5 < end, bytes[i + 2] == UInt8(ascii: "0"), bytes[i + 3] == UInt8(ascii: "0"),
                        let high = hexValue(bytes[i + 4]), high <= 1, let low = hexValue(bytes[i + 5])
                    else { return false }
                    let code = high << 4 | low
                    guard code != 0x09, code != 0x0A, code != 0x0D else { return false }
                    i += 6
                default:
                    return false
                }
            } else if byte < 0x20 || byte == 0x22 {
                return false
            } else {
                i += 1
            }
        }
        return ascii || String(validating: UnsafeBufferPointer(rebasing: bytes[1..<end]), as: UTF8.self) != nil
    }

    /// A lowercase hex digit's value (what `JSONValue.writeString` writes), or nil.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
