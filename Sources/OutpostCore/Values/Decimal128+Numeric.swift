/// Realm's `Numeric` conformance and the stride, bound and NaN members its Decimal128 has.
extension Decimal128: Numeric {
    public typealias Magnitude = Decimal128

    /// The integer, or nil when it has more than 34 significant digits (it would be rounded).
    public init?<T: BinaryInteger>(exactly source: T) {
        if let value = Int64(exactly: source) {
            self.init(value)
        } else if let value = UInt64(exactly: source) {
            self.init(value)
        } else {
            let digits = String(source.magnitude).utf8.reversed().drop { $0 == UInt8(ascii: "0") }.count
            guard digits <= Self.precision, let value = try? Decimal128(string: String(source)) else { return nil }
            self = value
        }
    }

    /// The largest finite value: 34 nines at the largest exponent.
    public static var max: Decimal128 { Decimal128(isNegative: false, coefficient: maxCoefficient, exponent: maxExponent) }

    /// The lowest finite value, `-max` (Realm's `min`, C++'s `numeric_limits::lowest`).
    public static var min: Decimal128 { Decimal128(isNegative: true, coefficient: maxCoefficient, exponent: maxExponent) }

    /// Realm's name of ``isSignaling``.
    public var isSignalingNaN: Bool { isSignaling }
}

extension Decimal128 {
    /// Realm's stride type (Realm's Decimal128 has the stride members without declaring `Strideable`).
    public typealias Stride = Decimal128

    /// `other - self`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// `self + n`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }
}
