import FirehoseWire

/// Reads back what a delivered object holds, whatever its compression, for the command line (`cat`,
/// `objects`): recognised by its first bytes (gzip, ZIP, snappy-java), or, for HADOOP_SNAPPY, which
/// has none, by its `.snappy` name. Not a stage of the pipeline: objects are only read by people.
public enum ObjectContent {
    public struct DecodingError: Error, Sendable, CustomStringConvertible {
        /// The format the object looked like.
        public var format: String
        public var description: String { "starts like \(format) but is not valid \(format) data" }
    }

    /// The content of `stored`; as stored when no compression is recognised. Content over `limit`
    /// bytes is refused as not decodable (a server reading a bucket bounds its memory).
    public static func decode(_ stored: [UInt8], key: String, limit: Int = Int.max) throws(DecodingError) -> [UInt8] {
        if Gzip.hasMagic(stored) {
            guard let content = try? Gzip.decompress(stored, limit: limit) else {
                throw DecodingError(format: "gzip")
            }
            return content
        }
        if stored.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            guard let content = ZipArchive.entryContent(stored, limit: limit) else {
                throw DecodingError(format: "ZIP")
            }
            return content
        }
        if stored.starts(with: SnappyJavaEncoding.header) {
            guard let content = SnappyJavaEncoding().decodeStaged(stored, limit: limit) else {
                throw DecodingError(format: "Snappy")
            }
            return content
        }
        if key.hasSuffix(".snappy"), let content = HadoopSnappyEncoding().decodeStaged(stored, limit: limit) {
            return content
        }
        return stored
    }
}
