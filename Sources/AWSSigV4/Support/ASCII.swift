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

    /// Whether every byte is ASCII. Then each byte is one `Character` (but CR LF, whitespace either way)
    /// and `Character.isWhitespace` agrees with `isWhitespace`, so byte loops can stand in for
    /// `Character` ones, which look up Unicode properties per character.
    static func isASCII(_ text: String) -> Bool {
        // OR-ing whole buffer lets the loop vectorize; native strings are always contiguous.
        let contiguous = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.reduce(0, |) < 0x80
        }
        return contiguous ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// `text.split(separator: Character(separator), omittingEmptySubsequences:)` for ASCII `text`, where
    /// each byte is one `Character` and splitting needs no grapheme breaking.
    static func split(_ text: Substring, separator: UInt8, omittingEmptySubsequences: Bool = true) -> [Substring] {
        let bytes = text.utf8
        var parts: [Substring] = []
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == separator {
                if !omittingEmptySubsequences || start < index { parts.append(Substring(bytes[start..<index])) }
                start = bytes.index(after: index)
            }
            bytes.formIndex(after: &index)
        }
        if !omittingEmptySubsequences || start < index { parts.append(Substring(bytes[start..<index])) }
        return parts
    }

    /// `text.contains { !$0.isWhitespace }`.
    static func containsNonWhitespace(_ text: String) -> Bool {
        isASCII(text) ? text.utf8.contains { !isWhitespace($0) } : text.contains { !$0.isWhitespace }
    }

    /// `text` without leading and trailing `Character.isWhitespace` characters.
    static func trimmingWhitespace(_ text: String) -> String {
        guard isASCII(text) else {
            var view = text[...]
            while view.first?.isWhitespace == true { view = view.dropFirst() }
            while view.last?.isWhitespace == true { view = view.dropLast() }
            return String(view)
        }
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
            let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        if first == bytes.startIndex, last == bytes.index(before: bytes.endIndex) { return text }
        return String(Substring(bytes[first...last]))
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10
    }

    /// Compares a header name as received with a name already in lowercase.
    static func equalsIgnoringCase(_ name: String, lowercased other: String) -> Bool {
        // Most headers differ in length from the one looked for; `utf8.count` of a native string is O(1).
        guard name.utf8.count == other.utf8.count else { return false }
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
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
    }

    /// A digest (or any bytes) as lowercase hex.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        Array(bytes).withUnsafeBytes { string($0) }
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
