import Crypto
import FirehoseWire

/// A record's sequence number, shaped as Kinesis's (56 decimal digits, increasing within a shard):
/// `49`, the stream's number (16 digits), the shard's index (12) and the record's position in the
/// log (26). Positions grow across the whole log, so within one shard so do the numbers; the stream
/// and shard in them let a number used on another shard or a re-created stream be refused.
public struct SequenceNumber: Sendable, Hashable, CustomStringConvertible {
    public var stream: Int64
    public var shard: Int
    public var position: Int64

    public init(stream: Int64, shard: Int, position: Int64) {
        self.stream = stream
        self.shard = shard
        self.position = position
    }

    /// A number this log wrote; nil for any other text.
    public init?(_ text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 56, digits[0] == UInt8(ascii: "4"), digits[1] == UInt8(ascii: "9"),
            digits.allSatisfy({ (0x30...0x39).contains($0) }),
            let stream = Int64(String(decoding: digits[2..<18], as: UTF8.self)),
            let shard = Int(String(decoding: digits[18..<30], as: UTF8.self)),
            let position = Int64(String(decoding: digits[30..<56], as: UTF8.self))
        else { return nil }
        self.init(stream: stream, shard: shard, position: position)
    }

    public var description: String {
        "49" + Self.padded(stream, 16) + Self.padded(Int64(shard), 12) + Self.padded(position, 26)
    }

    /// The model's SequenceNumber pattern, `0|([1-9]\d{0,128})`.
    public static func isModelText(_ text: String) -> Bool {
        HashKeySpace.isCanonicalDecimal(text, maxDigits: 129)
    }

    static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// Shard ids as Kinesis writes them: `shardId-` and the shard's index in 12 digits.
public enum ShardID {
    public static func text(_ index: Int) -> String {
        "shardId-" + SequenceNumber.padded(Int64(index), 12)
    }

    /// The index of a `shardId-NNNNNNNNNNNN`, or nil for any other id.
    public static func index(_ id: String) -> Int? {
        guard id.hasPrefix("shardId-"), id.utf8.count == 20 else { return nil }
        let digits = id.dropFirst(8)
        guard digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(digits)
    }
}

/// Texts the log hands out and takes back (shard iterators, paging tokens): base64 of their bytes
/// and an HMAC-SHA256 of them under the log's own key, so that one made up or changed is refused,
/// and one handed out before a restart is still taken.
public struct TokenSeal: Sendable {
    private let key: [UInt8]
    static let macBytes = 16

    public init(key: [UInt8]) {
        self.key = key
    }

    public func seal(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes + mac(bytes))
    }

    /// The bytes sealed in `text`; nil when this key did not seal them.
    public func open(_ text: String, maxLength: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        guard text.utf8.count <= maxLength, Base64.decode(Array(text.utf8), appendingTo: &bytes) != nil,
            bytes.count >= Self.macBytes
        else { return nil }
        let body = Array(bytes.dropLast(Self.macBytes))
        // Compared in constant time: the MAC is the only secret here.
        let expected = mac(body)
        let given = bytes.suffix(Self.macBytes)
        guard zip(expected, given).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else { return nil }
        return body
    }

    private func mac(_ bytes: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: bytes, using: SymmetricKey(data: key)).prefix(Self.macBytes))
    }
}

/// What a shard iterator stands for: the next position to read in one shard of one stream, and
/// when it was handed out (iterators expire after five minutes). Encoded as Kinesis's are, base64
/// of bytes that start `00…01`, sealed so that a damaged or made-up iterator is refused.
public struct ShardIteratorToken: Sendable, Equatable {
    public var stream: Int64
    public var shard: Int
    public var position: Int64
    public var issuedMilliseconds: Int64

    public init(stream: Int64, shard: Int, position: Int64, issuedMilliseconds: Int64) {
        self.stream = stream
        self.shard = shard
        self.position = position
        self.issuedMilliseconds = issuedMilliseconds
    }

    private static let version: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
    private static let byteCount = 8 + 8 + 4 + 8 + 8

    public func encoded(by seal: TokenSeal) -> String {
        var bytes = Self.version
        bytes.reserveCapacity(Self.byteCount)
        Self.append(UInt64(bitPattern: stream), to: &bytes)
        Self.append(UInt32(truncatingIfNeeded: shard), to: &bytes)
        Self.append(UInt64(bitPattern: position), to: &bytes)
        Self.append(UInt64(bitPattern: issuedMilliseconds), to: &bytes)
        return seal.seal(bytes)
    }

    /// The token an iterator encodes; nil when it is not one this log's seal sealed.
    public init?(decoding text: String, by seal: TokenSeal) {
        guard let bytes = seal.open(text, maxLength: 512), bytes.count == Self.byteCount,
            bytes.starts(with: Self.version)
        else { return nil }
        var offset = 8
        func read(_ width: Int) -> UInt64 {
            defer { offset += width }
            return bytes[offset..<offset + width].reduce(0) { $0 << 8 | UInt64($1) }
        }
        stream = Int64(bitPattern: read(8))
        shard = Int(read(4))
        position = Int64(bitPattern: read(8))
        issuedMilliseconds = Int64(bitPattern: read(8))
    }

    private static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }
}
