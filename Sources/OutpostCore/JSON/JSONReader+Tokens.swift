import Foundation

/// Token-level reading for readers that go straight from bytes to typed values (`UploadMessageReader`, the
/// server's `EventBatchReader`): each skips white space first and returns nil (or false) without consuming
/// anything but space when the next token is not what was asked for.
extension JSONReader {
    /// Whether only white space is left.
    package var atEnd: Bool {
        mutating get {
            skipSpace()
            return index == bytes.count
        }
    }

    /// The next byte after white space, or nil at the end.
    package mutating func peek() -> UInt8? {
        skipSpace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Skips white space and `byte` when it comes next; false (nothing skipped but space) otherwise.
    package mutating func take(_ byte: Unicode.Scalar) -> Bool {
        guard peek() == UInt8(ascii: byte) else { return false }
        index += 1
        return true
    }

    /// A string literal, or nil.
    package mutating func string() -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        return parseString()
    }

    /// The characters of a string literal without escapes (quotes excluded), as a range of ``bytes``, read without
    /// making a `String`; nil, with nothing read but space, for anything else.
    package mutating func plainString() -> Range<Int>? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        let end: Int? = bytes.withUnsafeBufferPointer { buffer in
            var i = start
            while i < buffer.count {
                let c = buffer[i]
                if c == UInt8(ascii: "\"") { return i }
                if c == UInt8(ascii: "\\") { return nil }
                i += 1
            }
            return nil
        }
        guard let end else { return nil }
        index = end + 1
        return start..<end
    }

    /// Whether the bytes in `range` are `literal`'s (ASCII).
    package func bytes(_ range: Range<Int>, are literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            memcmp(buffer.baseAddress! + range.lowerBound, literal.utf8Start, range.count) == 0
        }
    }

    /// Whether the bytes in two ranges are the same.
    package func bytes(_ a: Range<Int>, equal b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { buffer in
            memcmp(buffer.baseAddress! + a.lowerBound, buffer.baseAddress! + b.lowerBound, a.count) == 0
        }
    }

    /// A string literal of exactly 24 hexadecimal digits without escapes, as an ObjectId read straight from the
    /// bytes (no `String` made); nil, with nothing read but space, for anything else.
    package mutating func objectIdLiteral() -> ObjectId? {
        guard peek() == UInt8(ascii: "\""), index + 25 < bytes.count, bytes[index + 25] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        guard let id = bytes.withUnsafeBufferPointer({ ObjectId.parseHex(UnsafeBufferPointer(rebasing: $0[start..<start + 24])) })
        else { return nil }
        index += 26
        return id
    }

    /// A string literal of an optional `-` and 1 to 18 decimal digits, as its integer, read straight from the
    /// bytes; nil, with nothing read but space, for anything else (``Int64(_:)`` of the text may still read it).
    package mutating func decimalLiteral() -> Int64? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        var i = index + 1
        let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let digits = i
        var value: Int64 = 0
        while i < bytes.count, i - digits < 18, bytes[i] &- UInt8(ascii: "0") < 10 {
            value = value &* 10 &+ Int64(bytes[i] &- UInt8(ascii: "0"))
            i += 1
        }
        guard i > digits, i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
        index = i + 1
        return negative ? -value : value
    }

    /// An integer literal as ``parseValue()`` reads it, or nil (also for a number with a fraction).
    package mutating func integer() -> Int64? {
        guard let c = peek(), c != UInt8(ascii: "\""), c != UInt8(ascii: "["), c != UInt8(ascii: "{"),
            case .int(let v)? = parseNumber()
        else { return nil }
        return v
    }

    /// Skips one array or object without reading what it holds: brackets are matched and string literals skipped
    /// (escapes included), nothing else is checked — for a reader that parses the contents later. False, with
    /// nothing read but space, when the next token is not `[` or `{` or the text ends before the value does.
    package mutating func skipContainer() -> Bool {
        guard let first = peek(), first == UInt8(ascii: "[") || first == UInt8(ascii: "{") else { return false }
        let start = index
        let end: Int? = bytes.withUnsafeBufferPointer { buffer in
            var depth = 0
            var i = start
            while i < buffer.count {
                switch buffer[i] {
                case UInt8(ascii: "\""):
                    i += 1
                    while i < buffer.count, buffer[i] != UInt8(ascii: "\"") {
                        i += buffer[i] == UInt8(ascii: "\\") ? 2 : 1
                    }
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default:
                    break
                }
                i += 1
            }
            return nil
        }
        guard let end else { return false }
        index = end
        return true
    }
}
