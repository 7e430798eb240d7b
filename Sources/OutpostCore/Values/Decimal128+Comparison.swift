extension Decimal128: Hashable, Comparable {
    /// Numeric equality: `1.0 == 1.00`, `0 == -0`; NaN is not equal to anything, itself included.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == 0
    }

    /// Numeric order; false whenever either side is NaN.
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == -1
    }

    public static func <= (lhs: Decimal128, rhs: Decimal128) -> Bool {
        guard let order = compare(lhs, rhs) else { return false }
        return order <= 0
    }

    public static func >= (lhs: Decimal128, rhs: Decimal128) -> Bool {
        guard let order = compare(lhs, rhs) else { return false }
        return order >= 0
    }

    public static func > (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == 1
    }

    /// Hashes the canonical form (trailing zeros removed, one zero), so equal values hash equally.
    public func hash(into hasher: inout Hasher) {
        var parts = parts
        switch parts.kind {
        case .quietNaN, .signalingNaN:
            hasher.combine(2 as UInt8)
        case .infinity:
            hasher.combine(1 as UInt8)
            hasher.combine(parts.isNegative)
        case .finite where parts.coefficient == 0:
            hasher.combine(0 as UInt8)
        case .finite:
            while parts.coefficient % 10 == 0 {
                parts.coefficient /= 10
                parts.exponent += 1
            }
            hasher.combine(3 as UInt8)
            hasher.combine(parts.isNegative)
            hasher.combine(parts.coefficient)
            hasher.combine(parts.exponent)
        }
    }

    /// -1, 0 or 1 as `lhs` is less than, equal to or greater than `rhs`; nil if either is NaN.
    static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int? {
        let l = lhs.parts
        let r = rhs.parts
        if l.kind == .quietNaN || l.kind == .signalingNaN || r.kind == .quietNaN || r.kind == .signalingNaN {
            return nil
        }
        let lZero = l.kind == .finite && l.coefficient == 0
        let rZero = r.kind == .finite && r.coefficient == 0
        if lZero && rZero { return 0 }
        // Signs decide unless equal; a zero counts as positive against a negative value and
        // as negative against a positive one.
        let lSign = lZero ? 0 : (l.isNegative ? -1 : 1)
        let rSign = rZero ? 0 : (r.isNegative ? -1 : 1)
        if lSign != rSign { return lSign < rSign ? -1 : 1 }
        let magnitudeOrder = compareMagnitudes(l, r)
        return lSign < 0 ? -magnitudeOrder : magnitudeOrder
    }

    /// Compares the absolute values of two non-NaN, non-zero values (or two equal-signed ones).
    private static func compareMagnitudes(_ l: Parts, _ r: Parts) -> Int {
        switch (l.kind == .infinity, r.kind == .infinity) {
        case (true, true): return 0
        case (true, false): return 1
        case (false, true): return -1
        case (false, false): break
        }
        let lAdjusted = digitCount(l.coefficient) + l.exponent
        let rAdjusted = digitCount(r.coefficient) + r.exponent
        if lAdjusted != rAdjusted { return lAdjusted < rAdjusted ? -1 : 1 }
        // Same magnitude order: the exponents differ by at most 33, so scaling fits.
        var lc = l.coefficient
        var rc = r.coefficient
        if l.exponent > r.exponent {
            lc *= powersOfTen[l.exponent - r.exponent]
        } else if r.exponent > l.exponent {
            rc *= powersOfTen[r.exponent - l.exponent]
        }
        return lc == rc ? 0 : (lc < rc ? -1 : 1)
    }
}
