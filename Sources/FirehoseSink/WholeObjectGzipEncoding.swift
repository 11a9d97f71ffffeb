import CLibdeflate
import DurableStorage
import FirehoseWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `GZIP` written by libdeflate (`GzipImplementation: libdeflate`): each object is compressed in one
/// call at delivery, which libdeflate does about 1.8 times as fast as zlib at level 6 with objects a
/// little smaller (docs/benchmarks.md), but only over a whole buffer — it has no streaming, sync flush
/// or preset dictionary, so it cannot compress a request's records as they arrive. The member has the
/// header the zlib encoding writes, libdeflate's raw deflate stream, and the content's CRC-32 and size.
///
/// Buffers staged by the zlib encoding (a stream switched from one to the other across a restart)
/// still decode and deliver: staged GZIP is GZIP whichever deflate wrote it, so staging is the zlib
/// encoding's own.
struct WholeObjectGzipEncoding: WholeObjectEncoding {
    /// zlib's 1–9, passed to libdeflate as they are (its 1–9 mean the same trade; 10–12 are not offered).
    var level: Int32

    private var staged: GzipEncoding { GzipEncoding(level: level) }

    var name: String { staged.name }

    func makeSegmentEncoder() -> any SegmentEncoder { staged.makeSegmentEncoder() }

    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]? { staged.decodeStaged(stored, limit: limit) }

    func encodeWhole(_ content: [UInt8]) throws(FileSystemError) -> [UInt8] {
        try encodeObject(content, contentCRC: CRC32.checksum(content[...]))
    }

    func encodeObject(_ content: [UInt8], contentCRC: UInt32) throws(FileSystemError) -> [UInt8] {
        guard let compressor = libdeflate_alloc_compressor(level) else {
            throw FileSystemError(operation: "libdeflate_alloc_compressor", path: "(object)", errno: ENOMEM)
        }
        defer { libdeflate_free_compressor(compressor) }
        let header = GzipMember.header
        let checks = GzipMember.checks(crc: contentCRC, length: content.count)
        // The bound is what incompressible content needs; pages past what is written are never touched.
        let bound = libdeflate_deflate_compress_bound(compressor, content.count)
        let capacity = header.count + bound + checks.count
        return [UInt8](unsafeUninitializedCapacity: capacity) { output, count in
            let start = output.baseAddress!
            header.withUnsafeBufferPointer {
                _ = UnsafeMutableBufferPointer(start: start, count: $0.count).initialize(from: $0)
            }
            let deflated = content.withUnsafeBytes {
                libdeflate_deflate_compress(compressor, $0.baseAddress, $0.count, start + header.count, bound)
            }
            // libdeflate returns 0 only when the output does not fit, which `bound` rules out (empty
            // content still makes a final block).
            precondition(deflated > 0, "libdeflate_deflate_compress: output over its own bound")
            checks.withUnsafeBufferPointer {
                _ = UnsafeMutableBufferPointer(start: start + header.count + deflated, count: $0.count).initialize(
                    from: $0)
            }
            count = header.count + deflated + checks.count
        }
    }
}
