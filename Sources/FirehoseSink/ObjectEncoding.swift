package import DurableStorage
import FirehoseWire

/// The encoding stage (`CompressionFormat`): how a buffer's content becomes the bytes of its object.
/// A new format is one type conforming to this, which `DeliveryStreamSettings` picks for the streams
/// that name it; buffers, journals, recovery and publishing stay as they are.
package protocol ObjectEncoding: Sendable {
    /// Names the encoding in each staging journal, so a later start decodes what it staged.
    var name: String { get }

    /// The encoder of one buffer.
    func makeSegmentEncoder() -> any SegmentEncoder

    /// The content held by a committed prefix of staged bytes (recovery after a crash): at most
    /// `limit` bytes, or nil when the bytes do not decode.
    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]?

    /// `content` as one whole object (a recovered buffer is delivered so). By default what a buffer
    /// of one segment would hold.
    func encodeWhole(_ content: [UInt8]) throws(FileSystemError) -> [UInt8]
}

extension ObjectEncoding {
    package func encodeWhole(_ content: [UInt8]) throws(FileSystemError) -> [UInt8] {
        let encoder = makeSegmentEncoder()
        let records = content.isEmpty ? RecordBatch() : RecordBatch(storage: content, ends: [content.count])
        let segment = encoder.encodeHere(RecordRun(records: records, range: 0..<records.count))
        return encoder.header + segment.stored
            + encoder.trailer(
                contentCRC: segment.contentCRC, contentLength: segment.contentLength,
                storedLength: encoder.header.count + segment.stored.count)
    }
}

/// An encoding that compresses a whole object in one call, at delivery: its buffers are staged as
/// they are (`DeliveryStreamSettings.stagingEncoding`), and `DeliveryEncoding` reads a buffer's
/// content whole and hands it over.
package protocol WholeObjectEncoding: ObjectEncoding {
    /// The object holding `content`, whose CRC-32 is `contentCRC` (already computed and checked).
    func encodeObject(_ content: [UInt8], contentCRC: UInt32) throws(FileSystemError) -> [UInt8]
}

/// Encodes one buffer's segments, called on the stream's actor in reservation order. The object is
/// `header`, then every segment's stored bytes in that order, then `trailer`; each prefix ending at a
/// segment must decode on its own (`ObjectEncoding.decodeStaged`), since that is what a crash leaves.
package protocol SegmentEncoder: AnyObject {
    /// The bytes the object starts with.
    var header: [UInt8] { get }

    /// Encodes `run`, the buffer's next segment, here, or returns a job the request's own task runs
    /// off the stream's actor; `inParallel` says the run is large enough for that to pay.
    func encode(_ run: RecordRun, inParallel: Bool) -> PlannedSegment

    /// The bytes that end the object, given the CRC-32 and length of its whole content and the
    /// length of everything stored before the trailer (header included).
    func trailer(contentCRC: UInt32, contentLength: Int, storedLength: Int) -> [UInt8]
}

extension SegmentEncoder {
    /// Encodes `run`, the next segment, on the caller's thread.
    func encodeHere(_ run: RecordRun) -> EncodedSegment {
        switch encode(run, inParallel: false) {
        case .ready(let segment): segment
        case .job(let job): job.encode()
        }
    }
}

/// What `SegmentEncoder.encode` made of a run.
package enum PlannedSegment {
    /// Encoded on the spot (small, or nothing to compress).
    case ready(EncodedSegment)
    /// To be encoded by the caller, off the stream's executor.
    case job(SegmentJob)
}

extension DeliveryStreamSettings.Compression {
    /// The encoding stage that writes this format.
    func encoding(gzipLevel: Int32, implementation: DeliveryStreamSettings.GzipImplementation = .zlib)
        -> any ObjectEncoding
    {
        switch self {
        case .uncompressed: UncompressedEncoding()
        case .gzip where implementation == .libdeflate: WholeObjectGzipEncoding(level: gzipLevel)
        case .gzip: GzipEncoding(level: gzipLevel)
        case .zip: ZipEncoding(level: gzipLevel)
        case .snappy: SnappyJavaEncoding()
        case .hadoopSnappy: HadoopSnappyEncoding()
        }
    }
}

/// `UNCOMPRESSED`: the content as it is.
struct UncompressedEncoding: ObjectEncoding {
    var name: String { DeliveryStreamSettings.Compression.uncompressed.rawValue }

    func makeSegmentEncoder() -> any SegmentEncoder { Encoder() }

    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]? {
        stored.count <= limit ? stored : Array(stored.prefix(limit))
    }

    func encodeWhole(_ content: [UInt8]) -> [UInt8] { content }

    private final class Encoder: SegmentEncoder {
        var header: [UInt8] { [] }

        func encode(_ run: RecordRun, inParallel: Bool) -> PlannedSegment {
            // A large run is still copied off the actor: the copy (and its CRC) is the whole cost.
            inParallel ? .job(SegmentJob(run: run, encode: Self.segment)) : .ready(Self.segment(run))
        }

        /// Stored as is: the content array is what gets written, without a second copy.
        @Sendable static func segment(_ run: RecordRun) -> EncodedSegment {
            let content = run.content()
            let crc = content.withUnsafeBytes { CRC32.checksum($0) }
            return EncodedSegment(
                stored: content, storedCRC: crc, contentCRC: crc, contentLength: content.count,
                records: run.range.count)
        }

        func trailer(contentCRC: UInt32, contentLength: Int, storedLength: Int) -> [UInt8] { [] }
    }
}
