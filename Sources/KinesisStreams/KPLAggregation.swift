import Crypto

/// Records the Kinesis Producer Library aggregated into one Kinesis record, taken apart as Firehose
/// does for a Kinesis source: the magic `F3 89 9A C2`, a protobuf `AggregatedRecord` and the MD5 of
/// that protobuf (awslabs/amazon-kinesis-producer, aggregation-format.md). Anything else, or an
/// aggregate whose MD5 or protobuf does not check out, is an ordinary record, as the KCL treats it.
public enum KPLAggregation {
    public static let magic: [UInt8] = [0xF3, 0x89, 0x9A, 0xC2]
    static let digestBytes = 16

    /// The user records `data` aggregates, in order; nil when it is not a KPL aggregate.
    public static func userRecords(in data: [UInt8]) -> [[UInt8]]? {
        guard data.count >= magic.count + digestBytes, data.starts(with: magic) else { return nil }
        let message = data[magic.count..<(data.count - digestBytes)]
        guard Array(Insecure.MD5.hash(data: message)) == Array(data.suffix(digestBytes)) else { return nil }
        var reader = ProtobufReader(message)
        var records: [[UInt8]] = []
        var partitionKeys: UInt64 = 0
        var highestKeyIndex: UInt64?
        while !reader.isAtEnd {
            guard let (field, value) = reader.next() else { return nil }
            switch (field, value) {
            case (1, .bytes):
                partitionKeys += 1
            case (3, .bytes(let record)):
                guard let (user, keyIndex) = userRecord(record) else { return nil }
                records.append(user)
                highestKeyIndex = max(highestKeyIndex ?? 0, keyIndex)
            default:
                continue
            }
        }
        // Every record names a partition key of the table.
        if let highestKeyIndex, highestKeyIndex >= partitionKeys { return nil }
        return records
    }

    /// `Record{partition_key_index = 1; explicit_hash_key_index = 2; data = 3; tags = 4}`: its data
    /// and its partition key's index, both `required` in the format.
    private static func userRecord(_ bytes: ArraySlice<UInt8>) -> (data: [UInt8], keyIndex: UInt64)? {
        var reader = ProtobufReader(bytes)
        var data: [UInt8]?
        var keyIndex: UInt64?
        while !reader.isAtEnd {
            guard let (field, value) = reader.next() else { return nil }
            switch (field, value) {
            case (1, .varint(let index)): keyIndex = index
            case (3, .bytes(let payload)): data = Array(payload)
            default: continue
            }
        }
        guard let keyIndex, let data else { return nil }
        return (data, keyIndex)
    }
}

/// Reads protobuf's wire format field by field, every length checked against what remains.
struct ProtobufReader {
    enum Value {
        case varint(UInt64)
        case fixed64
        case bytes(ArraySlice<UInt8>)
        case fixed32
    }

    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var isAtEnd: Bool { index >= bytes.endIndex }

    /// The next field's number and value; nil when the bytes are not protobuf.
    mutating func next() -> (field: UInt64, value: Value)? {
        guard let key = varint(), key >> 3 > 0 else { return nil }
        switch key & 7 {
        case 0:
            guard let value = varint() else { return nil }
            return (key >> 3, .varint(value))
        case 1:
            guard bytes.endIndex - index >= 8 else { return nil }
            index += 8
            return (key >> 3, .fixed64)
        case 2:
            guard let length = varint(), length <= UInt64(bytes.endIndex - index) else { return nil }
            let start = index
            index += Int(length)
            return (key >> 3, .bytes(bytes[start..<index]))
        case 5:
            guard bytes.endIndex - index >= 4 else { return nil }
            index += 4
            return (key >> 3, .fixed32)
        default:
            return nil
        }
    }

    private mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard index < bytes.endIndex else { return nil }
            let byte = bytes[index]
            index += 1
            guard shift < 64 else { return nil }
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }
}
