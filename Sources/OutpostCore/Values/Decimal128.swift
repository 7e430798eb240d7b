/// An IEEE 754-2008 decimal128 value. (Placeholder: being completed.)
public struct Decimal128: Hashable, Sendable {
    public var low: UInt64
    public var high: UInt64
}
