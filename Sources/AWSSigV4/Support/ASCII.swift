/// Byte-level helpers: header names and SigV4 syntax are ASCII, and working on UTF-8 bytes keeps the
/// hot path free of `Character` grapheme breaking and of Foundation.
enum ASCII {
    static let slash = UInt8(ascii: "/")
    static let percent = UInt8(ascii: "%")
    static let equals = UInt8(ascii: "=")
    static let ampersand = UInt8(ascii: "&")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")
    static let comma = UInt8(ascii: ",")
    static let space = UInt8(ascii: " ")
    static let newline = UInt8(ascii: "\n")
    static let dot = UInt8(ascii: ".")

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// What Python's `str.split()` (and so botocore) treats as whitespace within ASCII: collapsing the
    /// same set keeps folded or tab-separated header values canonical the way clients compute them.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10
    }

    /// Compares a header name as received with a name already in lowercase.
    static func equalsIgnoringCase(_ name: String, lowercased other: String) -> Bool {
        var lhs = name.utf8.makeIterator()
        var rhs = other.utf8.makeIterator()
        while true {
            switch (lhs.next(), rhs.next()) {
            case (nil, nil): return true
            case (let a?, let b?) where lowercased(a) == b: continue
            default: return false
            }
        }
    }

    static func equalsIgnoringCase(_ name: some Collection<UInt8>, lowercased other: some Collection<UInt8>) -> Bool {
        guard name.count == other.count else { return false }
        return zip(name, other).allSatisfy { lowercased($0) == $1 }
    }
}

/// Lowercase hex without `String(format:)`, which would pull in Foundation's formatter on every request.
enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
    }

    static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}

enum ConstantTime {
    /// Compares two byte strings in time that depends only on their lengths, never on where they first
    /// differ, so a client cannot find the expected signature byte by byte from response times.
    /// Lengths are not secret (a signature is always 64 hex digits).
    static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        var difference: UInt8 = lhs.count == rhs.count ? 0 : 1
        var rhsIterator = rhs.makeIterator()
        for byte in lhs {
            // Running past the end of `rhs` compares against 0; the length check above already failed.
            difference |= byte ^ (rhsIterator.next() ?? 0)
        }
        return difference == 0
    }

    static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(lhs.utf8, rhs.utf8)
    }
}
