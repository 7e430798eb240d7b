extension Decimal128: ExpressibleByStringLiteral {
    /// Parses a decimal number, as Realm's `Decimal128(string:)`.
    ///
    /// Accepted: an optional sign, then digits with an optional decimal point (`1.5`, `-0.001`,
    /// `.5`, `5.`) and an optional exponent (`1e10`, `1.23E-7`, `1E+10`); or, ignoring case, `NaN`,
    /// `sNaN`, `Inf` or `Infinity`. Input with more than 34 significant digits is rounded half to
    /// even; magnitudes too large become infinities and too small become zero. Whitespace is not
    /// accepted.
    ///
    /// - Throws: ``ValueError`` with code ``ValueError/Code/invalidDecimal128String``; its message
    ///   names the text and the offset of the offending character.
    public init(string: String) throws {
        self = try Self.parse(string)
    }

    /// Creates a value from a literal; traps if the literal is not a valid decimal number.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    static func parse(_ string: String) throws -> Decimal128 {
        let bytes = Array(string.utf8)
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }

        let rest = String(decoding: bytes[index...], as: UTF8.self).lowercased()
        switch rest {
        case "nan": return Decimal128(special: .quietNaN, isNegative: negative)
        case "snan": return Decimal128(special: .signalingNaN, isNegative: negative)
        case "inf", "infinity": return Decimal128(special: .infinity, isNegative: negative)
        default: break
        }

        // Significant digits are kept until there are 37 (enough for a rounding digit); later
        // digits only move the exponent and set `sticky` if they are not zero.
        var coefficient: UInt128 = 0
        var kept = 0
        var exponent = 0
        var sticky = false
        var sawDigit = false
        var sawPoint = false
        digits: while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard !sawPoint else { throw parseError(string, at: index, "unexpected '.'") }
                sawPoint = true
            } else if let digit = digitValue(byte) {
                sawDigit = true
                if kept < 37 {
                    coefficient = coefficient * 10 + UInt128(digit)
                    if coefficient != 0 { kept += 1 }
                    if sawPoint { exponent -= 1 }
                } else {
                    if !sawPoint { exponent += 1 }
                    if digit != 0 { sticky = true }
                }
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                guard sawDigit else { throw parseError(string, at: index, "expected a digit before the exponent") }
                break digits
            } else {
                throw parseError(string, at: index, sawDigit || sawPoint ? "unexpected \(quote(bytes, index))"
                    : "expected a number, NaN or Inf, found \(quote(bytes, index))")
            }
            index += 1
        }
        guard sawDigit else {
            throw parseError(string, at: index, "expected a digit")
        }

        if index < bytes.count {
            // bytes[index] is the exponent marker.
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count else { throw parseError(string, at: index, "expected exponent digits") }
            var value = 0
            while index < bytes.count {
                guard let digit = digitValue(bytes[index]) else {
                    throw parseError(string, at: index, "expected exponent digits, found \(quote(bytes, index))")
                }
                // Beyond this any non-zero value overflows or underflows anyway.
                value = Swift.min(value * 10 + digit, 100_000_000)
                index += 1
            }
            exponent += exponentNegative ? -value : value
        }

        return rounded(isNegative: negative, coefficient: coefficient, exponent: exponent, sticky: sticky)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// The character starting at byte `index`, quoted.
    private static func quote(_ bytes: [UInt8], _ index: Int) -> String {
        var end = index + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return "'\(String(decoding: bytes[index..<end], as: UTF8.self))'"
    }

    private static func parseError(_ string: String, at byteOffset: Int, _ reason: String) -> ValueError {
        let utf8Index = string.utf8.index(string.utf8.startIndex, offsetBy: byteOffset)
        let offset = string.distance(from: string.startIndex, to: utf8Index)
        return ValueError(
            code: .invalidDecimal128String,
            message: "Invalid Decimal128 string \(ValueError.quoted(string)): \(reason) at offset \(offset)",
            text: string,
            position: offset
        )
    }
}
