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
        guard peek() == UInt8(ascii: "\""), case .string(let text)? = parseValue() else { return nil }
        return text
    }

    /// An integer literal as ``parseValue()`` reads it, or nil (also for a number with a fraction).
    package mutating func integer() -> Int64? {
        guard let c = peek(), c != UInt8(ascii: "\""), c != UInt8(ascii: "["), c != UInt8(ascii: "{"),
            case .int(let v)? = parseValue()
        else { return nil }
        return v
    }
}
