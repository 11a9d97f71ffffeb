/// Strict standard-alphabet base64 decoding straight into a caller's buffer, so a batch's records
/// land in one contiguous allocation. Padding may be omitted (some encoders do); any character
/// outside the alphabet, misplaced padding or an impossible length is an error.
package enum Base64 {
    /// Set in a table entry for a byte outside the alphabet; above the 24 bits a quantum decodes to,
    /// so OR-ing a quantum's four entries keeps it and one test per quantum finds any bad character.
    static let invalidBit: UInt32 = 0x0100_0000

    /// Four 256-entry tables back to back: entry `k * 256 + c` is the 6-bit value of character `c`
    /// already shifted to its place in a 24-bit quantum (`18 - 6k` bits), or `invalidBit`. Callers take
    /// a pointer once per call: reading a lazy global per character costs a `swift_once` check each time.
    static let decodeTables: [UInt32] = {
        var tables = [UInt32](repeating: invalidBit, count: 4 * 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            for position in 0..<4 {
                tables[position * 256 + Int(character)] = UInt32(value) << (18 - 6 * position)
            }
        }
        return tables
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

    /// The character count without padding and the decoded length, or nil for an impossible length.
    /// Padding is only recognised on a text whose length is a multiple of 4; elsewhere `=` is simply a
    /// character outside the alphabet, which decoding then rejects.
    @inline(__always)
    static func measure(_ encoded: UnsafePointer<UInt8>, count: Int) -> (unpaddedCount: Int, decodedLength: Int)? {
        var unpadded = count
        if count % 4 == 0, count > 0 {
            if encoded[unpadded - 1] == UInt8(ascii: "=") { unpadded -= 1 }
            if encoded[unpadded - 1] == UInt8(ascii: "=") { unpadded -= 1 }
        }
        guard let length = decodedLength(unpaddedCount: unpadded) else { return nil }
        return (unpadded, length)
    }

    /// Decodes `unpaddedCount` characters (as given by `measure`) into `output`, which must have room
    /// for the decoded length. Returns false when a character is outside the alphabet or the final
    /// bits are not canonical; `output` then holds garbage the caller discards.
    @inline(__always)
    static func decode(
        _ encoded: UnsafePointer<UInt8>, unpaddedCount: Int, into output: UnsafeMutablePointer<UInt8>,
        tables: UnsafePointer<UInt32>
    ) -> Bool {
        let t0 = tables
        let t1 = tables + 256
        let t2 = tables + 512
        let t3 = tables + 768
        var input = encoded
        var out = output
        var quanta = unpaddedCount / 4
        // One test at the end instead of a branch per quantum: a failed decode is discarded whole anyway.
        var seen: UInt32 = 0
        // All quanta but the last store 4 bytes at once (the 4th is overwritten by the next quantum), so
        // the last one, which has no room past it, stores byte by byte.
        while quanta > 1 {
            let value =
                t0[Int(input[0])] | t1[Int(input[1])] | t2[Int(input[2])] | t3[Int(input[3])]
            seen |= value
            UnsafeMutableRawPointer(out).storeBytes(of: (value << 8).bigEndian, as: UInt32.self)
            input += 4
            out += 3
            quanta -= 1
        }
        if quanta == 1 {
            let value =
                t0[Int(input[0])] | t1[Int(input[1])] | t2[Int(input[2])] | t3[Int(input[3])]
            seen |= value
            out[0] = UInt8(truncatingIfNeeded: value >> 16)
            out[1] = UInt8(truncatingIfNeeded: value >> 8)
            out[2] = UInt8(truncatingIfNeeded: value)
            input += 4
            out += 3
        }
        switch unpaddedCount % 4 {
        case 2:
            let value = t0[Int(input[0])] | t1[Int(input[1])]
            // Non-canonical trailing bits would make two different texts decode alike; reject them.
            seen |= value & 0xFFFF == 0 ? value : invalidBit
            out[0] = UInt8(truncatingIfNeeded: value >> 16)
        case 3:
            let value = t0[Int(input[0])] | t1[Int(input[1])] | t2[Int(input[2])]
            seen |= value & 0xFF == 0 ? value : invalidBit
            out[0] = UInt8(truncatingIfNeeded: value >> 16)
            out[1] = UInt8(truncatingIfNeeded: value >> 8)
        default:
            break
        }
        return seen & invalidBit == 0
    }

    /// Decodes `encoded` and appends the bytes to `output`. Returns the number of bytes appended,
    /// or nil (leaving `output` unchanged) when the text is not valid base64.
    @discardableResult
    package static func decode(_ encoded: [UInt8], appendingTo output: inout [UInt8]) -> Int? {
        encoded.withUnsafeBufferPointer { decode($0, appendingTo: &output) }
    }

    package static func decode(_ encoded: UnsafeBufferPointer<UInt8>, appendingTo output: inout [UInt8]) -> Int? {
        guard let base = encoded.baseAddress else { return 0 }
        guard let (unpaddedCount, length) = measure(base, count: encoded.count) else { return nil }
        let start = output.count
        // Grow geometrically: reserving exactly `start + length` on every call would reallocate a
        // batch's shared buffer once per record.
        if output.capacity < start + length { output.reserveCapacity(max(start + length, output.capacity * 2)) }
        // Array offers no way to write into spare capacity in place, so extend it with zeros (a memset)
        // and decode over them.
        output.append(contentsOf: repeatElement(0, count: length))
        let valid = decodeTables.withUnsafeBufferPointer { tables in
            output.withUnsafeMutableBufferPointer { buffer in
                decode(
                    base, unpaddedCount: unpaddedCount, into: buffer.baseAddress! + start,
                    tables: tables.baseAddress!)
            }
        }
        guard valid else {
            output.removeSubrange(start...)
            return nil
        }
        return length
    }

    private static let encodeAlphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Bytes of padded base64 for `count` bytes.
    package static func encodedLength(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Standard base64 with padding.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        guard !bytes.isEmpty else { return "" }
        let encoded = [UInt8](unsafeUninitializedCapacity: encodedLength(bytes.count)) { out, initialized in
            initialized = encode(bytes, into: out.baseAddress!)
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Standard base64 with padding, appended to `out`.
    package static func append(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: encodedLength(bytes.count)))
        out.withUnsafeMutableBufferPointer { buffer in _ = encode(bytes, into: buffer.baseAddress! + start) }
    }

    /// Standard base64 with padding, written through `out` (room for `encodedLength(bytes.count)`);
    /// returns the bytes written. For encoders that build a whole request body in one buffer.
    package static func encode(_ bytes: some Collection<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        bytes.withContiguousStorageIfAvailable { encodeContiguous($0, into: out) }
            ?? Array(bytes).withUnsafeBufferPointer { encodeContiguous($0, into: out) }
    }

    private static func encodeContiguous(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>)
        -> Int
    {
        encodeAlphabet.withUnsafeBufferPointer { table in
            let table = table.baseAddress!
            let count = bytes.count
            guard count > 0, let input = bytes.baseAddress else { return 0 }
            var index = 0
            var written = 0
            while index + 3 <= count {
                let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                out[written] = table[Int(word >> 18)]
                out[written + 1] = table[Int(word >> 12 & 0x3F)]
                out[written + 2] = table[Int(word >> 6 & 0x3F)]
                out[written + 3] = table[Int(word & 0x3F)]
                index += 3
                written += 4
            }
            switch count - index {
            case 1:
                let a = input[index]
                out[written] = table[Int(a >> 2)]
                out[written + 1] = table[Int((a & 0x03) << 4)]
                out[written + 2] = UInt8(ascii: "=")
                out[written + 3] = UInt8(ascii: "=")
                written += 4
            case 2:
                let a = input[index]
                let b = input[index + 1]
                out[written] = table[Int(a >> 2)]
                out[written + 1] = table[Int((a & 0x03) << 4 | b >> 4)]
                out[written + 2] = table[Int((b & 0x0F) << 2)]
                out[written + 3] = UInt8(ascii: "=")
                written += 4
            default:
                break
            }
            return written
        }
    }
}

extension Base64 {
    /// Base64url without padding (RFC 4648 §5), as JWTs write their parts.
    package static func encodeURL(_ bytes: [UInt8]) -> String {
        var text = encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// The bytes of base64url text, padded or not; nil when it is not base64url.
    package static func decodeURL(_ text: Substring) -> [UInt8]? {
        // Standard-alphabet characters are not base64url: refused rather than read.
        guard !text.utf8.contains(UInt8(ascii: "+")), !text.utf8.contains(UInt8(ascii: "/")) else { return nil }
        var standard = Array(text.utf8).map {
            $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0
        }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        var output: [UInt8] = []
        guard decode(standard, appendingTo: &output) != nil else { return nil }
        return output
    }
}
