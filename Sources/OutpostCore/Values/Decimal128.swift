/// An IEEE 754-2008 decimal128 floating-point number in the binary integer decimal (BID)
/// encoding that BSON, MongoDB and Realm use.
///
/// A value is `±coefficient × 10^exponent` with up to 34 significant decimal digits and an
/// exponent in -6176…6111, or an infinity, or NaN. Arithmetic rounds to 34 digits, half to even.
///
/// Unlike `Double`, decimal fractions are exact: `Decimal128(string: "0.1")` is exactly one tenth.
/// Values keep their exponent (`1.0` and `1.00` are different encodings) but compare and hash
/// numerically, so `1.0 == 1.00`.
public struct Decimal128: Sendable {
    /// The low 64 bits of the BID encoding (the low bits of the coefficient).
    public var low: UInt64
    /// The high 64 bits of the BID encoding: sign, combination field, exponent, coefficient high bits.
    public var high: UInt64

    /// Creates a value from its two BID words, as stored in BSON (little-endian low word first).
    public init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// The two 64-bit words of the BID encoding.
    public var bid: (low: UInt64, high: UInt64) { (low, high) }

    /// Zero (`0`, exponent 0).
    public init() {
        self.init(low: 0, high: UInt64(Self.exponentBias) << 49)
    }

    /// A quiet NaN.
    public static let nan = Decimal128(low: 0, high: 0x7C00_0000_0000_0000)
    /// A signaling NaN.
    public static let signalingNaN = Decimal128(low: 0, high: 0x7E00_0000_0000_0000)
    /// Positive infinity.
    public static let infinity = Decimal128(low: 0, high: 0x7800_0000_0000_0000)

    /// True for NaN (quiet or signaling).
    public var isNaN: Bool { high & 0x7C00_0000_0000_0000 == 0x7C00_0000_0000_0000 }
    /// True for a signaling NaN.
    public var isSignaling: Bool { high & 0x7E00_0000_0000_0000 == 0x7E00_0000_0000_0000 }
    /// True for positive or negative infinity.
    public var isInfinite: Bool { high & 0x7C00_0000_0000_0000 == 0x7800_0000_0000_0000 }
    /// True unless the value is NaN or an infinity.
    public var isFinite: Bool { high & 0x7800_0000_0000_0000 != 0x7800_0000_0000_0000 }
    /// True for a zero of either sign and any exponent.
    public var isZero: Bool { isFinite && parts.coefficient == 0 }
    /// True if the sign bit is set (including `-0` and negative NaNs).
    public var isSignMinus: Bool { high >> 63 == 1 }

    /// The absolute value (the sign bit cleared; NaN stays NaN).
    public var magnitude: Decimal128 {
        Decimal128(low: low, high: high & ~(1 << 63))
    }

    /// Flips the sign (also of zeros, infinities and NaNs).
    public mutating func negate() {
        high ^= 1 << 63
    }

    /// The value with its sign flipped.
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        var result = operand
        result.negate()
        return result
    }
}

// MARK: - Encoding and decoding the BID fields

extension Decimal128 {
    static let exponentBias = 6176
    /// The smallest exponent of a coefficient (the subnormal limit).
    package static let minExponent = -6176
    /// The largest exponent of a coefficient.
    package static let maxExponent = 6111
    /// The number of significant decimal digits.
    package static let precision = 34
    /// 10^34 - 1, the largest coefficient.
    static let maxCoefficient: UInt128 = powersOfTen[34] - 1

    /// What a value is, with its fields decoded.
    package enum Kind: Hashable, Sendable {
        case finite
        case infinity
        case quietNaN
        case signalingNaN
    }

    /// A decoded value: sign, kind, and for finite values coefficient and exponent.
    package struct Parts: Hashable, Sendable {
        package var isNegative: Bool
        package var kind: Kind
        package var coefficient: UInt128
        package var exponent: Int
    }

    /// The decoded fields. Non-canonical coefficients (larger than 10^34 - 1) read as zero, as
    /// IEEE 754 requires.
    package var parts: Parts {
        let negative = high >> 63 == 1
        switch (high >> 58) & 0x1F {
        case 0x1F:
            let kind: Kind = (high >> 57) & 1 == 1 ? .signalingNaN : .quietNaN
            return Parts(isNegative: negative, kind: kind, coefficient: 0, exponent: 0)
        case 0x1E:
            return Parts(isNegative: negative, kind: .infinity, coefficient: 0, exponent: 0)
        default:
            break
        }
        if (high >> 61) & 0b11 == 0b11 {
            // The "large coefficient" form always encodes a coefficient >= 2^113 > 10^34: non-canonical.
            let exponent = Int((high >> 47) & 0x3FFF) - Self.exponentBias
            return Parts(isNegative: negative, kind: .finite, coefficient: 0, exponent: exponent)
        }
        let exponent = Int((high >> 49) & 0x3FFF) - Self.exponentBias
        var coefficient = UInt128(high & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(low)
        if coefficient > Self.maxCoefficient { coefficient = 0 }
        return Parts(isNegative: negative, kind: .finite, coefficient: coefficient, exponent: exponent)
    }

    /// Encodes a finite value whose coefficient and exponent are already in range.
    package init(isNegative: Bool, coefficient: UInt128, exponent: Int) {
        precondition(coefficient <= Self.maxCoefficient, "Decimal128 coefficient has more than 34 digits")
        precondition(
            (Self.minExponent...Self.maxExponent).contains(exponent),
            "Decimal128 exponent \(exponent) out of range"
        )
        let sign: UInt64 = isNegative ? 1 << 63 : 0
        self.init(
            low: UInt64(truncatingIfNeeded: coefficient),
            high: sign | UInt64(exponent + Self.exponentBias) << 49 | UInt64(truncatingIfNeeded: coefficient >> 64)
        )
    }

    /// Encodes an infinity or NaN with the given sign.
    package init(special kind: Kind, isNegative: Bool) {
        let sign: UInt64 = isNegative ? 1 << 63 : 0
        switch kind {
        case .finite: self.init(isNegative: isNegative, coefficient: 0, exponent: 0)
        case .infinity: self.init(low: 0, high: Self.infinity.high | sign)
        case .quietNaN: self.init(low: 0, high: Self.nan.high | sign)
        case .signalingNaN: self.init(low: 0, high: Self.signalingNaN.high | sign)
        }
    }
}
