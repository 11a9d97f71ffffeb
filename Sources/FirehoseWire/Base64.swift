/// Strict standard-alphabet base64 decoding straight into a caller's buffer, so a batch's records
/// land in one contiguous allocation. Padding may be omitted (some encoders do); any character
/// outside the alphabet, misplaced padding or an impossible length is an error.
public enum Base64 {
    private static let invalid: UInt8 = 0xFF
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(index)
        }
        return table
    }()

    /// Exact decoded length, or nil when `encodedLength` (padding removed) cannot be base64.
    static func decodedLength(unpaddedCount: Int) -> Int? {
        switch unpaddedCount % 4 {
        case 0: return unpaddedCount / 4 * 3
        case 2: return unpaddedCount / 4 * 3 + 1
        case 3: return unpaddedCount / 4 * 3 + 2
        default: return nil
        }
    }

    /// Decodes `encoded` and appends the bytes to `output`. Returns the number of bytes appended,
    /// or nil (leaving `output` unchanged) when the text is not valid base64.
    @discardableResult
    public static func decode(_ encoded: [UInt8], appendingTo output: inout [UInt8]) -> Int? {
        encoded.withUnsafeBufferPointer { decode($0, appendingTo: &output) }
    }

    public static func decode(_ encoded: UnsafeBufferPointer<UInt8>, appendingTo output: inout [UInt8]) -> Int? {
        var count = encoded.count
        if count % 4 == 0, count > 0 {
            if encoded[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if encoded[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        guard let length = decodedLength(unpaddedCount: count) else { return nil }
        let start = output.count
        // Grow geometrically: reserving exactly `start + length` on every call would reallocate a
        // batch's shared buffer once per record.
        if output.capacity < start + length { output.reserveCapacity(max(start + length, output.capacity * 2)) }
        var index = 0
        while index + 4 <= count {
            let a = table[Int(encoded[index])]
            let b = table[Int(encoded[index + 1])]
            let c = table[Int(encoded[index + 2])]
            let d = table[Int(encoded[index + 3])]
            guard (a | b | c | d) & 0xC0 == 0 else {
                output.removeSubrange(start...)
                return nil
            }
            output.append((a << 2) | (b >> 4))
            output.append((b << 4) | (c >> 2))
            output.append((c << 6) | d)
            index += 4
        }
        let remaining = count - index
        if remaining >= 2 {
            let a = table[Int(encoded[index])]
            let b = table[Int(encoded[index + 1])]
            let c = remaining == 3 ? table[Int(encoded[index + 2])] : 0
            // Non-canonical trailing bits would make two different texts decode alike; reject them.
            let unusedBits = remaining == 2 ? b & 0x0F : c & 0x03
            guard (a | b | c) & 0xC0 == 0, unusedBits == 0 else {
                output.removeSubrange(start...)
                return nil
            }
            output.append((a << 2) | (b >> 4))
            if remaining == 3 { output.append((b << 4) | (c >> 2)) }
        }
        return output.count - start
    }

    /// Standard base64 with padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            out.append(alphabet[Int(first >> 2)])
            out.append(alphabet[Int((first & 0x03) << 4 | (second ?? 0) >> 4)])
            out.append(second.map { alphabet[Int(($0 & 0x0F) << 2 | (third ?? 0) >> 6)] } ?? UInt8(ascii: "="))
            out.append(third.map { alphabet[Int($0 & 0x3F)] } ?? UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
