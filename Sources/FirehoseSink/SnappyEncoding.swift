import CSnappy
import DurableStorage
import FirehoseWire

/// Snappy block compression of 32 KiB pieces, the unit both of Firehose's Snappy formats use.
enum SnappyBlocks {
    /// Uncompressed bytes per block: what snappy-java's streams (which real Firehose objects were
    /// reproduced with byte for byte) use.
    static let blockSize = 32 * 1024

    /// Compresses `content` block by block; `frame` writes each block's framing before its
    /// compressed bytes, given the block's uncompressed and compressed lengths.
    static func compress(
        _ content: UnsafeRawBufferPointer,
        frame: (_ uncompressed: Int, _ compressed: Int, _ into: inout [UInt8]) -> Void
    ) -> [UInt8] {
        var output: [UInt8] = []
        let blocks = (content.count + blockSize - 1) / blockSize
        output.reserveCapacity(content.count / 2 + blocks * 16)
        var scratch = [UInt8](repeating: 0, count: snappy_max_compressed_length(blockSize))
        var offset = 0
        while offset < content.count {
            let block = UnsafeRawBufferPointer(rebasing: content[offset..<min(content.count, offset + blockSize)])
            var compressedLength = scratch.count
            let status = scratch.withUnsafeMutableBytes { out in
                snappy_compress(
                    block.baseAddress!.assumingMemoryBound(to: CChar.self), block.count,
                    out.baseAddress!.assumingMemoryBound(to: CChar.self), &compressedLength)
            }
            // Only a too small output buffer fails, and scratch is snappy's own bound.
            precondition(status == SNAPPY_OK, "snappy_compress failed")
            frame(block.count, compressedLength, &output)
            output.append(contentsOf: scratch[..<compressedLength])
            offset += block.count
        }
        return output
    }

    /// One raw Snappy block, or nil when it is not valid or does not decode to `expected` bytes
    /// (when given) or more than `limit`.
    static func uncompress(_ block: ArraySlice<UInt8>, expected: Int? = nil, limit: Int) -> [UInt8]? {
        block.withUnsafeBytes { compressed -> [UInt8]? in
            let input = compressed.baseAddress?.assumingMemoryBound(to: CChar.self)
            var length = 0
            guard snappy_uncompressed_length(input, compressed.count, &length) == SNAPPY_OK,
                length <= min(limit, blockSize), expected.map({ $0 == length }) ?? true
            else { return nil }
            var output = [UInt8](repeating: 0, count: length)
            var written = length
            let status = output.withUnsafeMutableBytes { out in
                snappy_uncompress(
                    input, compressed.count, out.baseAddress?.assumingMemoryBound(to: CChar.self), &written)
            }
            return status == SNAPPY_OK && written == length ? output : nil
        }
    }

    static func appendBigEndian(_ value: Int, to output: inout [UInt8]) {
        let value = UInt32(value)
        output.append(contentsOf: [
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ])
    }

    static func readBigEndian(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard offset + 4 <= bytes.count else { return nil }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }
}

/// `Snappy`: the stream format of snappy-java's `SnappyOutputStream`, which is what real Firehose
/// objects were found to be (docs/compatibility.md): a 16-byte header (`0x82 SNAPPY 0x00`, version 1,
/// compatible version 1), then per block its compressed length (4 bytes, big-endian) and the raw
/// Snappy block. Blocks are independent, so every segment is encoded on its own, in parallel.
struct SnappyJavaEncoding: ObjectEncoding {
    static let header: [UInt8] = [0x82, 0x53, 0x4E, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]

    var name: String { DeliveryStreamSettings.Compression.snappy.rawValue }

    func makeSegmentEncoder() -> any SegmentEncoder {
        SnappyBlockEncoder(header: Self.header) { _, compressed, output in
            SnappyBlocks.appendBigEndian(compressed, to: &output)
        }
    }

    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]? {
        guard stored.starts(with: Self.header) else { return nil }
        var content: [UInt8] = []
        var offset = Self.header.count
        while offset < stored.count, content.count < limit {
            guard let length = SnappyBlocks.readBigEndian(stored, at: offset), offset + 4 + length <= stored.count,
                let block = SnappyBlocks.uncompress(
                    stored[offset + 4..<offset + 4 + length], limit: limit - content.count)
            else { return nil }
            content += block
            offset += 4 + length
        }
        return content
    }
}

/// `HADOOP_SNAPPY`: Hadoop's `BlockCompressorStream` framing, as `SnappyCodec` reads it: per block its
/// uncompressed length, then its compressed length (4 bytes each, big-endian), then the raw Snappy
/// block. No header, no trailer.
struct HadoopSnappyEncoding: ObjectEncoding {
    var name: String { DeliveryStreamSettings.Compression.hadoopSnappy.rawValue }

    func makeSegmentEncoder() -> any SegmentEncoder {
        SnappyBlockEncoder(header: []) { uncompressed, compressed, output in
            SnappyBlocks.appendBigEndian(uncompressed, to: &output)
            SnappyBlocks.appendBigEndian(compressed, to: &output)
        }
    }

    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]? {
        var content: [UInt8] = []
        var offset = 0
        while offset < stored.count, content.count < limit {
            guard let uncompressed = SnappyBlocks.readBigEndian(stored, at: offset),
                let length = SnappyBlocks.readBigEndian(stored, at: offset + 4), offset + 8 + length <= stored.count,
                let block = SnappyBlocks.uncompress(
                    stored[offset + 8..<offset + 8 + length], expected: uncompressed, limit: limit - content.count)
            else { return nil }
            content += block
            offset += 8 + length
        }
        return content
    }
}

/// Both Snappy formats' segments: the run cut into blocks, each framed and compressed, on the actor
/// for small runs and as a job for large ones.
final class SnappyBlockEncoder: SegmentEncoder {
    typealias Frame = @Sendable (_ uncompressed: Int, _ compressed: Int, _ output: inout [UInt8]) -> Void

    let header: [UInt8]
    private let frame: Frame

    init(header: [UInt8], frame: @escaping Frame) {
        self.header = header
        self.frame = frame
    }

    func encode(_ run: RecordRun, inParallel: Bool) -> PlannedSegment {
        let job = SegmentJob(run: run) { [frame] run in
            run.withContent { content in
                EncodedSegment(
                    stored: SnappyBlocks.compress(content, frame: frame), content: content, records: run.range.count)
            }
        }
        return inParallel ? .job(job) : .ready(job.encode())
    }

    func trailer(contentCRC: UInt32, contentLength: Int, storedLength: Int) -> [UInt8] { [] }
}
