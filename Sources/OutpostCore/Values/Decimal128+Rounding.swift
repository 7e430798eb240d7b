extension Decimal128 {
    /// 10^0 … 10^38, every power of ten that fits in a `UInt128`.
    static let powersOfTen: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1...38 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// The number of decimal digits of `value`; 1 for zero.
    static func digitCount(_ value: UInt128) -> Int {
        var count = 1
        while count < 39 && value >= powersOfTen[count] { count += 1 }
        return count
    }

    /// Rounds `±coefficient × 10^exponent` to a decimal128, half to even.
    ///
    /// `sticky` says that the exact value is slightly larger in magnitude than `coefficient`
    /// (non-zero digits were discarded below it); callers set it only when at least one more digit
    /// will be dropped here, so that the rounding digit is still present. The result keeps the
    /// given exponent when the value fits exactly (preserving trailing zeros); exponents below the
    /// subnormal limit lose digits (gradual underflow, possibly to zero); exponents above the
    /// limit are folded into the coefficient when it has room, else the result is ±infinity.
    package static func rounded(
        isNegative: Bool, coefficient: UInt128, exponent: Int, sticky: Bool = false
    ) -> Decimal128 {
        var coefficient = coefficient
        var exponent = exponent
        let drop = Swift.max(digitCount(coefficient) - precision, minExponent - exponent, 0)
        if drop >= 39 {
            // Everything is discarded and less than half a unit remains.
            coefficient = 0
            exponent += drop
        } else if drop > 0 {
            let divisor = powersOfTen[drop]
            let (quotient, remainder) = coefficient.quotientAndRemainder(dividingBy: divisor)
            let half = divisor / 2
            let roundUp = remainder > half || (remainder == half && (sticky || quotient & 1 == 1))
            coefficient = roundUp ? quotient + 1 : quotient
            exponent += drop
            if coefficient > maxCoefficient {
                coefficient /= 10
                exponent += 1
            }
        } else {
            assert(!sticky, "an inexact coefficient must have a digit to round away")
        }
        if exponent > maxExponent {
            if coefficient == 0 {
                exponent = maxExponent
            } else if digitCount(coefficient) + (exponent - maxExponent) <= precision {
                coefficient *= powersOfTen[exponent - maxExponent]
                exponent = maxExponent
            } else {
                return Decimal128(special: .infinity, isNegative: isNegative)
            }
        }
        return Decimal128(isNegative: isNegative, coefficient: coefficient, exponent: exponent)
    }

    /// Creates the value `±coefficient × 10^exponent`, rounded to 34 digits half to even.
    ///
    /// - Parameters:
    ///   - sign: `.minus` for a negative value (including `-0`).
    ///   - coefficient: any unsigned integer up to 2^128 - 1.
    ///   - exponent: the power of ten; results out of range underflow towards zero or overflow to infinity.
    public init(sign: FloatingPointSign = .plus, coefficient: UInt128, exponent: Int) {
        let exponent = Swift.min(Swift.max(exponent, -1_000_000), 1_000_000)
        self = Self.rounded(isNegative: sign == .minus, coefficient: coefficient, exponent: exponent)
    }
}
