import Crypto

/// The 128-bit hash key space and how a stream's shards divide it, as Kinesis Data Streams does:
/// a record's hash key is the MD5 of its partition key read as an unsigned big-endian integer
/// (unless the producer names one), and shard `i` of `n` starts at `i * floor(2^128 / n)`, the last
/// ending at `2^128 - 1`.
public struct HashKeySpace: Sendable, Equatable {
    public let shardCount: Int
    private let step: UInt128

    public init(shardCount: Int) {
        precondition(shardCount > 0)
        self.shardCount = shardCount
        // floor(2^128 / n) without 2^128, which has no UInt128: one more than floor((2^128 - 1) / n)
        // exactly when n divides 2^128. One shard owns everything (its step would be 2^128).
        let n = UInt128(shardCount)
        step = shardCount == 1 ? 0 : UInt128.max / n + (UInt128.max % n == n - 1 ? 1 : 0)
    }

    /// The keys shard `index` owns.
    public func range(ofShard index: Int) -> ClosedRange<UInt128> {
        let start = step * UInt128(index)
        let end = index == shardCount - 1 ? UInt128.max : start + step - 1
        return start...end
    }

    /// The shard that owns `hashKey`.
    public func shard(for hashKey: UInt128) -> Int {
        shardCount == 1 ? 0 : min(Int(hashKey / step), shardCount - 1)
    }

    /// A partition key's hash key: MD5 of its UTF-8 bytes, big-endian.
    public static func hashKey(partitionKey: String) -> UInt128 {
        Insecure.MD5.hash(data: Array(partitionKey.utf8)).reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
    }

    /// An `ExplicitHashKey` as the model spells it (`0|([1-9]\d{0,38})`), and inside the key space.
    public static func parse(explicitHashKey text: String) -> UInt128? {
        isHashKeyText(text) ? UInt128(text) : nil
    }

    /// Whether `text` matches the model's HashKey pattern, whatever its value.
    public static func isHashKeyText(_ text: String) -> Bool {
        isCanonicalDecimal(text, maxDigits: 39)
    }

    /// `0|([1-9]\d{0,maxDigits-1})`: the model's patterns for hash keys and sequence numbers.
    static func isCanonicalDecimal(_ text: String, maxDigits: Int) -> Bool {
        guard let first = text.utf8.first, text.utf8.count <= maxDigits else { return false }
        return text.utf8.allSatisfy { (0x30...0x39).contains($0) } && (first != 0x30 || text.utf8.count == 1)
    }
}
