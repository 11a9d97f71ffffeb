import Crypto
import FirehoseSink
import FirehoseWire
import ServerCore

/// The integrity headers of an upload (`Content-MD5`, `x-amz-checksum-*`), checked against the body
/// as S3 checks them: a value that is not the body's is refused, and the object is not written.
enum S3Checksums {
    /// The checksum headers this server checks, and how each is computed (base64 of the digest; the
    /// CRCs big-endian).
    static let algorithms: [(header: String, name: String, digest: @Sendable ([UInt8]) -> [UInt8])] = [
        ("x-amz-checksum-crc32", "CRC32", { bigEndian(CRC32.checksum($0[...])) }),
        ("x-amz-checksum-crc32c", "CRC32C", { bigEndian(CRC32C.checksum($0)) }),
        ("x-amz-checksum-sha1", "SHA1", { Array(Insecure.SHA1.hash(data: $0)) }),
        ("x-amz-checksum-sha256", "SHA256", { Array(SHA256.hash(data: $0)) }),
    ]

    /// Checks every integrity header the request carries (or its aws-chunked body's trailers);
    /// returns the checksum headers to echo in the answer, as S3 does.
    /// - Parameter md5: the body's MD5 when the caller has it already (an upload's ETag).
    static func verify(
        _ request: APIRequest, body: [UInt8], md5: [UInt8]? = nil, trailers: [(name: String, value: String)] = []
    ) throws(S3Error) -> [(name: String, value: String)] {
        if let declared = request.header("content-md5") {
            var decoded: [UInt8] = []
            guard Base64.decode(Array(declared.utf8), appendingTo: &decoded) != nil, decoded.count == 16 else {
                throw S3Error(code: "InvalidDigest", message: "The Content-MD5 you specified was invalid.", status: 400)
            }
            guard decoded == md5 ?? Array(Insecure.MD5.hash(data: body)) else {
                throw S3Error(
                    code: "BadDigest", message: "The Content-MD5 you specified did not match what we received.",
                    status: 400)
            }
        }
        var echoed: [(name: String, value: String)] = []
        for algorithm in algorithms {
            guard
                let declared = request.header(algorithm.header)
                    ?? trailers.first(where: { $0.name == algorithm.header })?.value
            else { continue }
            let computed = Base64.encode(algorithm.digest(body))
            guard declared.trimmingASCIISpaces == computed else {
                var decoded: [UInt8] = []
                guard Base64.decode(Array(declared.utf8), appendingTo: &decoded) != nil else {
                    throw S3Error(
                        code: "InvalidRequest", message: "Value for \(algorithm.header) header is invalid.",
                        status: 400)
                }
                throw S3Error(
                    code: "BadDigest",
                    message: "The \(algorithm.name) you specified did not match the calculated checksum.",
                    status: 400)
            }
            echoed.append((algorithm.header, computed))
        }
        return echoed
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// CRC-32C (Castagnoli), the `CRC32C` checksum of S3 uploads; zlib has only CRC-32.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

/// A DeleteObjects request body: `<Delete><Object><Key>…</Key></Object>…<Quiet>true</Quiet></Delete>`,
/// read without an XML library: only these elements matter, and anything that is not this shape is
/// `MalformedXML`, as S3 answers.
struct S3DeleteRequest: Equatable {
    var keys: [String]
    var quiet: Bool

    static let maxKeys = 1000

    init(keys: [String], quiet: Bool) {
        self.keys = keys
        self.quiet = quiet
    }

    init(parsing body: [UInt8]) throws(S3Error) {
        guard let text = String(validating: body, as: UTF8.self), text.contains("<Delete") else {
            throw .malformedXML
        }
        guard let objects = S3XML.elements("Object", in: Substring(text)) else { throw .malformedXML }
        var keys: [String] = []
        for object in objects {
            guard let key = S3XML.element("Key", in: object) else { throw .malformedXML }
            keys.append(key)
        }
        guard !keys.isEmpty, keys.count <= Self.maxKeys else { throw .malformedXML }
        self.keys = keys
        quiet = S3XML.element("Quiet", in: Substring(text))?.lowercased() == "true"
    }
}
