extension Decimal128: CustomStringConvertible, Codable {
    /// The value as text, using the IEEE 754 / BSON decimal128 "to-scientific-string" rules:
    ///
    /// - plain notation when the exponent is ≤ 0 and the adjusted exponent (exponent plus the
    ///   number of digits minus one) is ≥ -6: `1.5`, `-0.001`, `1.00`, `0E-3` prints `0.000`;
    /// - scientific notation otherwise, with one digit before the point and a signed exponent:
    ///   `1E+10`, `1.5E+3` (for 15 × 10^2), `1.23E-7`;
    /// - `NaN` for every NaN, `Inf` and `-Inf` for infinities (Realm's spelling).
    ///
    /// Trailing zeros are kept (the exponent is part of the value), and the text parses back to
    /// the identical encoding.
    public var stringValue: String {
        let parts = parts
        if let special = Self.specialText(parts) { return special }
        let digits = String(parts.coefficient)
        let exponent = parts.exponent
        let adjusted = exponent + digits.count - 1
        var text = parts.isNegative ? "-" : ""
        if exponent <= 0 && adjusted >= -6 {
            let integerDigits = digits.count + exponent
            if exponent == 0 {
                text += digits
            } else if integerDigits <= 0 {
                text += "0." + String(repeating: "0", count: -integerDigits) + digits
            } else {
                text += digits.prefix(integerDigits) + "." + digits.dropFirst(integerDigits)
            }
        } else {
            text += digits.prefix(1)
            if digits.count > 1 { text += "." + digits.dropFirst() }
            text += "E" + (adjusted >= 0 ? "+" : "-") + String(abs(adjusted))
        }
        return text
    }

    /// Realm's text for the value: the coefficient's digits with the point moved left while there is exponent to
    /// spend and more than one digit before it, trailing zeros after the point dropped, what exponent is left as
    /// `E…` (`1.234567+9.876543` prints `11.11111`, `2.5-3.5` prints `-1`, `0.001` prints `1E-3`); a coefficient
    /// over 64 bits prints as the BID library does (`+9999999999999999999999999999999999E+6111`).
    /// ``stringValue`` keeps the exponent, as BSON and the stored text need it.
    public var description: String {
        let parts = parts
        if let special = Self.specialText(parts) { return special }
        let digits = String(parts.coefficient)
        var exponent = parts.exponent
        if parts.coefficient > UInt128(UInt64.max) {  // realm-core leaves these to the BID library's text
            return (parts.isNegative ? "-" : "+") + digits + "E" + (exponent < 0 ? "-" : "+") + String(abs(exponent))
        }
        var before = digits.count
        while before > 1 && exponent != 0 {
            before -= 1
            exponent += 1
        }
        var fraction = String(digits.dropFirst(before))
        while fraction.last == "0" { fraction.removeLast() }
        var text = (parts.isNegative ? "-" : "") + digits.prefix(before)
        if !fraction.isEmpty { text += "." + fraction }
        if exponent != 0 { text += "E\(exponent)" }
        return text
    }

    /// Decodes the string form (see ``init(string:)``) or a JSON number (as Realm decodes one).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self.init(number)
            return
        }
        let string = try container.decode(String.self)
        do {
            try self.init(string: string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    /// Encodes the value as its ``stringValue``, which decodes to the identical encoding.
    /// Realm's text (``description``), as Realm encodes it: equal in value, though an exponent kept only in trailing
    /// zeros (`1.50`) is not carried.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// `NaN`, `Inf` or `-Inf` (Realm's spellings); nil for a finite value.
    private static func specialText(_ parts: Parts) -> String? {
        switch parts.kind {
        case .quietNaN, .signalingNaN: "NaN"
        case .infinity: parts.isNegative ? "-Inf" : "Inf"
        case .finite: nil
        }
    }
}
