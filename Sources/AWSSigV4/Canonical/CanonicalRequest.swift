/// The SigV4 canonical request, built as UTF-8 bytes so it can be hashed without ever becoming a `String`.
///
/// Shared by the signer and the verifier so both sides canonicalize identically; the rules are those of
/// every AWS service (Firehose normalizes the path and encodes it once more) and S3's (the path as
/// sent, `pathAsSent`).
enum CanonicalRequest {
    static let algorithm = "AWS4-HMAC-SHA256"

    /// - Parameters:
    ///   - signedHeaderNames: the names to canonicalize, in the order listed (the verifier takes them from
    ///     `SignedHeaders` as the client wrote it; the signer passes them sorted and lowercase).
    ///   - signedHeadersLine: the `SignedHeaders` value, which the canonical request repeats verbatim.
    ///   - pathAsSent: S3's rule: the path as sent, neither normalized nor encoded twice
    ///     (`appendS3CanonicalURI`).
    ///   - omittingQueryKey: a query parameter left out (a presigned URL's `X-Amz-Signature`).
    static func build(
        method: String,
        path: String,
        query: String,
        signedHeaderNames: [Substring],
        signedHeadersLine: String,
        headers: [(name: String, value: String)],
        payloadHash: String,
        pathAsSent: Bool = false,
        omittingQueryKey: String? = nil
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + path.utf8.count + query.utf8.count + headers.count * 48)
        out.append(contentsOf: method.utf8)
        out.append(ASCII.newline)
        if pathAsSent {
            appendS3CanonicalURI(path, to: &out)
        } else {
            appendCanonicalURI(path, to: &out)
        }
        out.append(ASCII.newline)
        appendCanonicalQuery(query, omitting: omittingQueryKey, to: &out)
        out.append(ASCII.newline)
        for name in signedHeaderNames {
            appendCanonicalHeader(name, from: headers, to: &out)
        }
        out.append(ASCII.newline)
        out.append(contentsOf: signedHeadersLine.utf8)
        out.append(ASCII.newline)
        out.append(contentsOf: payloadHash.utf8)
        return out
    }

    static func stringToSign(timestamp: AMZTimestamp, scope: String, canonicalRequest: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(algorithm.utf8.count + 18 + scope.utf8.count + 64)
        out.append(contentsOf: algorithm.utf8)
        out.append(ASCII.newline)
        timestamp.appendISO8601Basic(to: &out)
        out.append(ASCII.newline)
        out.append(contentsOf: scope.utf8)
        out.append(ASCII.newline)
        out.append(contentsOf: SHA256Hex.hash(canonicalRequest).utf8)
        return out
    }

    // MARK: - Header

    /// `name:value1,value2\n`, with every value of the header in the order received.
    static func appendCanonicalHeader(
        _ name: Substring,
        from headers: [(name: String, value: String)],
        to out: inout [UInt8]
    ) {
        for byte in name.utf8 {
            out.append(ASCII.lowercased(byte))
        }
        out.append(ASCII.colon)
        var found = false
        for header in headers where equalsIgnoringCase(header.name, name) {
            if found {
                out.append(ASCII.comma)
            }
            appendCanonicalValue(header.value, to: &out)
            found = true
        }
        // HTTP/2 carries the host as `:authority`; clients still sign it under the name `host`.
        if !found, equalsIgnoringCase("host", name) {
            for header in headers where header.name == ":authority" {
                appendCanonicalValue(header.value, to: &out)
                break
            }
        }
        out.append(ASCII.newline)
    }

    /// Trims the value and collapses each inner run of whitespace (folded lines included) to one space.
    static func appendCanonicalValue(_ value: String, to out: inout [UInt8]) {
        var pendingSpace = false
        var wroteAny = false
        for byte in value.utf8 {
            if ASCII.isWhitespace(byte) {
                pendingSpace = wroteAny
                continue
            }
            if pendingSpace {
                out.append(ASCII.space)
                pendingSpace = false
            }
            out.append(byte)
            wroteAny = true
        }
    }

    private static func equalsIgnoringCase(_ lhs: String, _ rhs: Substring) -> Bool {
        let lhs = lhs.utf8
        let rhs = rhs.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { ASCII.lowercased($0) == ASCII.lowercased($1) }
    }

    // MARK: - URI

    /// Normalizes the wire path (drops empty, `.` and `..` segments, keeps a trailing slash, as botocore's
    /// `remove_dot_segments` does) and then URI-encodes each segment once more: the wire form is already
    /// encoded, so `%20` on the wire is `%2520` here, which is what non-S3 SigV4 clients sign.
    static func appendCanonicalURI(_ path: String, to out: inout [UInt8]) {
        let bytes = Array(path.utf8)
        var segments: [Range<Int>] = []
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != ASCII.slash {
                end += 1
            }
            let segment = bytes[start..<end]
            if segment.isEmpty || (segment.count == 1 && segment.first == ASCII.dot) {
                // Empty (duplicate slash) and `.` segments vanish.
            } else if segment.count == 2, segment.allSatisfy({ $0 == ASCII.dot }) {
                _ = segments.popLast()
            } else {
                segments.append(start..<end)
            }
            start = end + 1
        }

        let startLength = out.count
        if bytes.first == ASCII.slash {
            out.append(ASCII.slash)
        }
        for (index, segment) in segments.enumerated() {
            if index > 0 {
                out.append(ASCII.slash)
            }
            appendURIEncoded(bytes[segment], to: &out)
        }
        if bytes.last == ASCII.slash, !segments.isEmpty {
            out.append(ASCII.slash)
        }
        if out.count == startLength {
            out.append(ASCII.slash)
        }
    }

    /// S3's canonical URI: the path encoded once, not normalized. The wire form is already encoded
    /// and clients sign what they send, so an escape stays exactly as it came (`%2E%2E` is not `..`,
    /// `%24` stays `%24`) and only a raw byte SigV4 would escape is escaped: the signing suite's
    /// `/example space/` becomes `/example%20space/`.
    static func appendS3CanonicalURI(_ path: String, to out: inout [UInt8]) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty else {
            out.append(ASCII.slash)
            return
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.percent, index + 2 < bytes.count, hexValue(bytes[index + 1]) != nil,
                hexValue(bytes[index + 2]) != nil
            {
                out += bytes[index..<(index + 3)]
                index += 3
            } else {
                if byte == ASCII.slash { out.append(byte) } else { appendURIEncoded(CollectionOfOne(byte), to: &out) }
                index += 1
            }
        }
    }

    // MARK: - Query

    /// Decodes each key and value and encodes it again with the SigV4 rules, so a query that arrives
    /// encoded (`%E1%88%B4`), half encoded (`%7e`) or raw (`ሴ`) canonicalizes the same way clients
    /// computed it. Pairs sort by encoded key, then encoded value; a bare key becomes `key=`.
    static func appendCanonicalQuery(_ query: String, omitting omitted: String? = nil, to out: inout [UInt8]) {
        guard !query.isEmpty else { return }
        var pairs: [(key: [UInt8], value: [UInt8])] = []
        for piece in query.utf8.split(separator: ASCII.ampersand) {
            var key: [UInt8] = []
            var value: [UInt8] = []
            if let equals = piece.firstIndex(of: ASCII.equals) {
                appendURIEncoded(percentDecoded(piece[..<equals]), to: &key)
                appendURIEncoded(percentDecoded(piece[piece.index(after: equals)...]), to: &value)
            } else {
                appendURIEncoded(percentDecoded(piece), to: &key)
            }
            if let omitted, key.elementsEqual(omitted.utf8) { continue }
            pairs.append((key, value))
        }
        pairs.sort { lhs, rhs in
            lhs.key == rhs.key
                ? lhs.value.lexicographicallyPrecedes(rhs.value)
                : lhs.key.lexicographicallyPrecedes(rhs.key)
        }
        for (index, pair) in pairs.enumerated() {
            if index > 0 {
                out.append(ASCII.ampersand)
            }
            out.append(contentsOf: pair.key)
            out.append(ASCII.equals)
            out.append(contentsOf: pair.value)
        }
    }

    /// `%XX` becomes its byte; anything else, a malformed escape or `+` included, stays literal
    /// (SigV4 clients encode a space as `%20`, never `+`).
    static func percentDecoded(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == ASCII.percent, index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// SigV4 URI encoding: every byte outside `A-Z a-z 0-9 - _ . ~` becomes `%XX` (uppercase hex).
    static func appendURIEncoded(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        for byte in bytes {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(ASCII.percent)
                out.append(upperHex[Int(byte >> 4)])
                out.append(upperHex[Int(byte & 0x0F)])
            }
        }
    }

    @inline(__always)
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}

/// SigV4's URI encoding, for anything else that wants it (query values, IAM's policy documents): RFC
/// 3986's unreserved characters as they are, every other byte `%XX` in uppercase hex.
public enum URIEncoding {
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        CanonicalRequest.appendURIEncoded(text.utf8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
