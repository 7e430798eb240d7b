/// SplitMix64: a tiny seeded random number generator, so randomized tests and reliability runs are the same on every
/// run and reproducible from the seed they print.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`Int.random(in:using:)`; `bound` must be positive).
    public mutating func int(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool { int(100) < percent }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }

    /// A number in `0..<bound` by remainder (0 when `bound` is 0).
    public mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }
}
