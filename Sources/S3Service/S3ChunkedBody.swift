import AWSSigV4
import ServerCore

/// An aws-chunked upload body (`Content-Encoding: aws-chunked`), decoded: chunks of
/// `<hex size>[;chunk-signature=<signature>]\r\n<data>\r\n`, a last chunk of size 0, then trailing
/// headers (`x-amz-checksum-crc32:…`, and `x-amz-trailer-signature:…` when signed) and an empty line
/// (sigv4-streaming.html, sigv4-streaming-trailers.html). Signed chunks are checked against the
/// chain that starts at the request's signature; a body that breaks the format, or declares another
/// decoded length, is refused whole.
struct S3ChunkedBody {
    var data: [UInt8]
    /// The trailing headers, names lowercased, the trailer signature left out.
    var trailers: [(name: String, value: String)]

    /// The longest chunk-size line (a 16-digit size, and a signature) worth reading.
    static let maxLineBytes = 256

    static func malformed(_ detail: String) -> S3Error {
        S3Error(code: "IncompleteBody", message: "The aws-chunked body is malformed: \(detail).", status: 400)
    }

    static func incomplete(_ decodedLength: Int, holding chunks: Int?) -> S3Error {
        let held = chunks.map { "the chunks hold \($0)" } ?? "the body is shorter"
        return S3Error(
            code: "IncompleteBody",
            message:
                "You did not provide the number of bytes specified by the x-amz-decoded-content-length HTTP header (\(decodedLength); \(held)).",
            status: 400)
    }

    static let signatureMismatch = S3Error(
        code: "SignatureDoesNotMatch",
        message:
            "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
        status: 403)

    /// - Parameters:
    ///   - signatures: the chain to check chunk signatures against; nil when the chunks are not
    ///     signed (`STREAMING-UNSIGNED-PAYLOAD-TRAILER`) or authentication is off.
    ///   - signed: whether each chunk must carry a signature.
    ///   - decodedLength: `x-amz-decoded-content-length`, which the data must match.
    init(
        decoding body: [UInt8], signed: Bool, signatures: ChunkSignatures?, decodedLength: Int?
    ) throws(S3Error) {
        var chain = signatures
        // The decoded data is part of the body: a declared length past it is a lie told before a
        // single byte is reserved for it (it once reserved 100 GB for a 15-byte body, and aborted).
        if let decodedLength, decodedLength > body.count { throw Self.incomplete(decodedLength, holding: nil) }
        var data: [UInt8] = []
        data.reserveCapacity(min(decodedLength ?? body.count, body.count))
        var index = 0

        func line() throws(S3Error) -> Substring {
            var end = index
            while end + 1 < body.count, !(body[end] == 0x0D && body[end + 1] == 0x0A) {
                end += 1
                if end - index > Self.maxLineBytes {
                    throw Self.malformed("a line longer than \(Self.maxLineBytes) bytes")
                }
            }
            guard end + 1 < body.count else { throw Self.malformed("the body ends inside a line") }
            let text = String(decoding: body[index..<end], as: UTF8.self)
            index = end + 2
            return Substring(text)
        }

        while true {
            let header = try line()
            let parts = header.split(separator: ";", maxSplits: 1)
            guard let sizeText = parts.first, sizeText.utf8.count <= 16, let size = Int(sizeText, radix: 16),
                size >= 0
            else { throw Self.malformed("'\(header.prefix(40))' is no chunk size") }
            guard size <= body.count - index else { throw Self.malformed("a chunk runs past the end of the body") }
            let chunk = body[index..<(index + size)]
            if signed {
                guard parts.count == 2, parts[1].hasPrefix("chunk-signature=") else {
                    throw Self.malformed("a chunk has no chunk-signature")
                }
                if var current = chain {
                    let expected = current.next(dataSHA256: SHA256Hex.hash(chunk))
                    chain = current
                    guard expected == parts[1].dropFirst("chunk-signature=".count) else {
                        throw Self.signatureMismatch
                    }
                }
            }
            index += size
            if size == 0 { break }
            data += chunk
            guard index + 1 < body.count, body[index] == 0x0D, body[index + 1] == 0x0A else {
                throw Self.malformed("a chunk's data does not end with CRLF")
            }
            index += 2
        }

        var trailers: [(name: String, value: String)] = []
        var trailerSignature: Substring?
        var canonicalTrailers: [UInt8] = []
        while index < body.count {
            let text = try line()
            if text.isEmpty { break }
            guard let colon = text.firstIndex(of: ":") else { throw Self.malformed("a trailer without ':'") }
            let name = text[..<colon].lowercased()
            let value = text[text.index(after: colon)...].trimmingASCIISpaces
            if name == "x-amz-trailer-signature" {
                trailerSignature = Substring(value)
            } else {
                trailers.append((name, value))
                canonicalTrailers += Array("\(name):\(value)\n".utf8)
            }
        }
        guard index == body.count else { throw Self.malformed("bytes after the last chunk's trailers") }
        if signed, !trailers.isEmpty || trailerSignature != nil, var current = chain {
            guard let trailerSignature, current.trailer(canonicalHeaders: canonicalTrailers) == trailerSignature
            else { throw Self.signatureMismatch }
        }
        if let decodedLength, decodedLength != data.count { throw Self.incomplete(decodedLength, holding: data.count) }
        self.data = data
        self.trailers = trailers
    }
}
