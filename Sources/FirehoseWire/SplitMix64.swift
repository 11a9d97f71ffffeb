/// SplitMix64: tiny, fast, and the same sequence on every platform for a given seed. What makes a
/// fault rule's failures, a benchmark profile's records and a test's random bytes repeat from the
/// seed alone.
public struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// Uniform in `range`, up to a modulo bias that is negligible for the widths this serves
    /// (far below 2^64). Any range, `Int.min...Int.max` included.
    public mutating func number(in range: ClosedRange<Int>) -> Int {
        // The width less one, in two's complement: never overflows.
        let span = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound))
        guard span < UInt64.max else { return Int(truncatingIfNeeded: next()) }
        return range.lowerBound &+ Int(truncatingIfNeeded: next() % (span + 1))
    }
}
