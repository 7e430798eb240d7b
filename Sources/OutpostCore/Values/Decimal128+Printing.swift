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
        switch parts.kind {
        case .quietNaN, .signalingNaN: return "NaN"
        case .infinity: return parts.isNegative ? "-Inf" : "Inf"
        case .finite: break
        }
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

    /// Same as ``stringValue``.
    public var description: String { stringValue }

    /// Decodes the string form (see ``init(string:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string: string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    /// Encodes the value as its ``stringValue``, which decodes to the identical encoding.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
