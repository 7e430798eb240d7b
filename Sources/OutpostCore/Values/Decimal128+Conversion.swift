extension Decimal128: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// The integer, exactly (exponent 0).
    public init(_ value: Int) {
        self.init(Int64(value))
    }

    /// The integer, exactly (exponent 0).
    public init(_ value: Int64) {
        self.init(isNegative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// The integer, exactly (exponent 0).
    public init(_ value: UInt64) {
        self.init(isNegative: false, coefficient: UInt128(value), exponent: 0)
    }

    /// The shortest decimal that converts back to `value` (as `value.description` prints it), so
    /// `Decimal128(0.1)` is exactly `0.1`, not the binary double's long expansion. Trailing zeros
    /// after the point are dropped (`Decimal128(1.0)` prints `1`); NaN and infinities carry over.
    public init(_ value: Double) {
        if value.isNaN {
            self = .nan
            return
        }
        if value.isInfinite {
            self.init(special: .infinity, isNegative: value < 0)
            return
        }
        // `description` of a finite Double is always valid decimal text with at most 17 digits.
        var parts = (try! Self.parse(value.description)).parts
        if parts.coefficient == 0 {
            parts.exponent = 0
        }
        while parts.exponent < 0 && parts.coefficient != 0 && parts.coefficient % 10 == 0 {
            parts.coefficient /= 10
            parts.exponent += 1
        }
        self.init(isNegative: parts.isNegative, coefficient: parts.coefficient, exponent: parts.exponent)
    }

    public init(integerLiteral value: Int64) {
        self.init(value)
    }

    /// Uses the literal's shortest decimal text, so `1.1` is exactly 1.1. Literals with more than
    /// 17 significant digits are first rounded to a `Double`; use a string literal for those.
    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// The nearest `Double` (correctly rounded); NaN and infinities carry over, values beyond
    /// `Double`'s range become infinities or zeros.
    public var doubleValue: Double {
        let parts = parts
        switch parts.kind {
        case .quietNaN, .signalingNaN: return .nan
        case .infinity: return parts.isNegative ? -.infinity : .infinity
        case .finite:
            let magnitude = Double("\(parts.coefficient)e\(parts.exponent)") ?? .nan
            return parts.isNegative ? -magnitude : magnitude
        }
    }

    /// The value as an `Int64` if it is an integer in `Int64`'s range (`2.50E+1` is 25), else nil.
    public var int64Value: Int64? {
        let parts = parts
        guard parts.kind == .finite else { return nil }
        if parts.coefficient == 0 { return 0 }
        var magnitude = parts.coefficient
        if parts.exponent > 0 {
            guard parts.exponent <= 19 else { return nil }
            let (product, overflow) = magnitude.multipliedReportingOverflow(by: Self.powersOfTen[parts.exponent])
            guard !overflow else { return nil }
            magnitude = product
        } else if parts.exponent < 0 {
            guard -parts.exponent <= 38 else { return nil }
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: Self.powersOfTen[-parts.exponent])
            guard remainder == 0 else { return nil }
            magnitude = quotient
        }
        if parts.isNegative {
            guard magnitude <= UInt128(Int64.min.magnitude) else { return nil }
            return Int64(truncatingIfNeeded: 0 &- UInt64(magnitude))
        }
        guard magnitude <= UInt128(Int64.max) else { return nil }
        return Int64(magnitude)
    }
}
