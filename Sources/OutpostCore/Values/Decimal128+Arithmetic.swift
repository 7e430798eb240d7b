extension Decimal128 {
    /// The sum, rounded to 34 digits half to even. `Inf + -Inf` and any NaN operand give NaN.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs.parts, rhs.parts)
    }

    /// The difference, rounded to 34 digits half to even.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        var negated = rhs.parts
        negated.isNegative.toggle()
        return add(lhs.parts, negated)
    }

    /// The product, rounded to 34 digits half to even. `0 × Inf` and any NaN operand give NaN.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let (a, b) = (lhs.parts, rhs.parts)
        let negative = a.isNegative != b.isNegative
        if a.isNaN || b.isNaN { return .nan }
        if a.kind == .infinity || b.kind == .infinity {
            if a.isZero || b.isZero { return .nan }
            return Decimal128(special: .infinity, isNegative: negative)
        }
        var (high, low) = a.coefficient.multipliedFullWidth(by: b.coefficient)
        var exponent = a.exponent + b.exponent
        var sticky = false
        // Shrink the up-to-68-digit product to 37 digits, remembering discarded non-zero digits.
        while high != 0 || low >= powersOfTen[37] {
            let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: 10)
            let (lowQuotient, lowRemainder) = (10 as UInt128).dividingFullWidth((high: highRemainder, low: low))
            high = highQuotient
            low = lowQuotient
            if lowRemainder != 0 { sticky = true }
            exponent += 1
        }
        return rounded(isNegative: negative, coefficient: low, exponent: exponent, sticky: sticky)
    }

    /// The quotient, rounded to 34 digits half to even. `x / 0` is ±Inf, `0 / 0`, `Inf / Inf` and
    /// any NaN operand give NaN.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let (a, b) = (lhs.parts, rhs.parts)
        let negative = a.isNegative != b.isNegative
        if a.isNaN || b.isNaN { return .nan }
        switch (a.kind == .infinity, b.kind == .infinity) {
        case (true, true): return .nan
        case (true, false): return Decimal128(special: .infinity, isNegative: negative)
        case (false, true): return Decimal128(isNegative: negative, coefficient: 0, exponent: minExponent)
        case (false, false): break
        }
        if b.coefficient == 0 {
            return a.coefficient == 0 ? .nan : Decimal128(special: .infinity, isNegative: negative)
        }
        // Long division, one decimal digit at a time, until the quotient is exact or has 35
        // digits; the remainder then only matters as a sticky bit. Exact quotients keep the
        // preferred exponent (lhs exponent - rhs exponent) when they can.
        var (quotient, remainder) = a.coefficient.quotientAndRemainder(dividingBy: b.coefficient)
        var exponent = a.exponent - b.exponent
        while remainder != 0 && quotient < powersOfTen[34] {
            remainder *= 10
            let (digit, rest) = remainder.quotientAndRemainder(dividingBy: b.coefficient)
            quotient = quotient * 10 + digit
            remainder = rest
            exponent -= 1
        }
        return rounded(isNegative: negative, coefficient: quotient, exponent: exponent, sticky: remainder != 0)
    }

    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    private static func add(_ x: Parts, _ y: Parts) -> Decimal128 {
        if x.isNaN || y.isNaN { return .nan }
        switch (x.kind == .infinity, y.kind == .infinity) {
        case (true, true):
            guard x.isNegative == y.isNegative else { return .nan }
            return Decimal128(special: .infinity, isNegative: x.isNegative)
        case (true, false): return Decimal128(special: .infinity, isNegative: x.isNegative)
        case (false, true): return Decimal128(special: .infinity, isNegative: y.isNegative)
        case (false, false): break
        }
        // `a` has the larger exponent.
        let (a, b) = x.exponent >= y.exponent ? (x, y) : (y, x)
        if a.coefficient == 0 && b.coefficient == 0 {
            // -0 + -0 is -0; other sums of zeros are +0 (when rounding to nearest).
            return Decimal128(isNegative: a.isNegative && b.isNegative, coefficient: 0, exponent: b.exponent)
        }
        if a.coefficient == 0 {
            // Exact: b itself, whose exponent is the preferred (smaller) one.
            return Decimal128(isNegative: b.isNegative, coefficient: b.coefficient, exponent: b.exponent)
        }
        // Align: scale a up by at most `room` digits (to 37 digits); if the exponents differ by
        // more, shift b's coefficient down and keep its discarded digits as a sticky bit.
        let shift = a.exponent - b.exponent
        let room = 37 - digitCount(a.coefficient)
        let scaleA = Swift.min(shift, room)
        let dropB = shift - scaleA
        let aligned = a.coefficient * powersOfTen[scaleA]
        var other = b.coefficient
        var sticky = false
        if dropB > 0 {
            if dropB >= 39 {
                sticky = other != 0
                other = 0
            } else {
                let (quotient, remainder) = other.quotientAndRemainder(dividingBy: powersOfTen[dropB])
                other = quotient
                sticky = remainder != 0
            }
        }
        let exponent = b.exponent + dropB
        if a.isNegative == b.isNegative {
            return rounded(isNegative: a.isNegative, coefficient: aligned + other, exponent: exponent, sticky: sticky)
        }
        if aligned == other && !sticky {
            return Decimal128(isNegative: false, coefficient: 0, exponent: Swift.min(exponent, maxExponent))
        }
        if aligned > other || (aligned == other && sticky) {
            // `aligned` has 37 digits when sticky, so the true difference lies strictly between
            // (aligned - other - 1) and (aligned - other): round from below with the sticky bit.
            let difference = sticky ? aligned - other - 1 : aligned - other
            return rounded(isNegative: a.isNegative, coefficient: difference, exponent: exponent, sticky: sticky)
        }
        // |b| > |a| only happens without a sticky bit (b was not shifted).
        return rounded(isNegative: b.isNegative, coefficient: other - aligned, exponent: exponent)
    }
}

extension Decimal128.Parts {
    var isNaN: Bool { kind == .quietNaN || kind == .signalingNaN }
    var isZero: Bool { kind == .finite && coefficient == 0 }
}

extension Decimal128 {
    /// `lhs / rhs` by name, for Outpost's global `/` (its Decimal128+Operators.swift): there both operators are
    /// visible, and the name makes sure the global one does not call itself.
    package static func quotient(_ lhs: Decimal128, _ rhs: Decimal128) -> Decimal128 { lhs / rhs }

    /// `-operand` by name, for the same reason.
    package static func negation(_ operand: Decimal128) -> Decimal128 { -operand }
}
