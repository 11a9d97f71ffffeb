package import FirehoseWire
import Synchronization

/// The bytes one request adds to one staging buffer, encoded and ready to be written at its turn.
package struct EncodedSegment: Sendable {
    /// What goes into the data file (compressed for GZIP).
    package var stored: [UInt8]
    /// CRC-32 of `stored`: the journal's check.
    package var storedCRC: UInt32
    /// CRC-32 and length of the content before compression (what a trailer states).
    package var contentCRC: UInt32
    package var contentLength: Int
    package var records: Int

    package init(stored: [UInt8], storedCRC: UInt32, contentCRC: UInt32, contentLength: Int, records: Int) {
        self.stored = stored
        self.storedCRC = storedCRC
        self.contentCRC = contentCRC
        self.contentLength = contentLength
        self.records = records
    }

    /// `stored`, encoded from `content`, which holds `records` records.
    package init(stored: [UInt8], content: UnsafeRawBufferPointer, records: Int) {
        self.init(
            stored: stored, storedCRC: stored.withUnsafeBytes { CRC32.checksum($0) },
            contentCRC: CRC32.checksum(content),
            contentLength: content.count, records: records)
    }
}

/// A slice of one request's processed records bound for one buffer: records `range` of `records`,
/// which lie back to back in the batch's storage and are the segment's content.
package struct RecordRun: Sendable {
    package var records: RecordBatch
    package var range: Range<Int>

    package init(records: RecordBatch, range: Range<Int>) {
        self.records = records
        self.range = range
    }

    package var contentLength: Int { storageRange.count }

    /// Calls `body` with the content, in the batch's own storage.
    package func withContent<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        records.storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[storageRange])) }
    }

    /// The content as an array of its own: the batch's storage itself when the run is all of it.
    package func content() -> [UInt8] {
        storageRange.count == records.storage.count ? records.storage : Array(records.storage[storageRange])
    }

    /// Where the run's records lie in the batch's storage.
    private var storageRange: Range<Int> {
        guard !range.isEmpty else { return 0..<0 }
        return records.range(of: range.lowerBound).lowerBound..<records.range(of: range.upperBound - 1).upperBound
    }
}

/// A segment's encoding, run by the request's own task off the stream's actor, so one stream's
/// compression spreads over every core.
package struct SegmentJob: Sendable {
    private let run: RecordRun
    private let work: @Sendable (RecordRun) -> EncodedSegment

    package init(run: RecordRun, encode: @escaping @Sendable (RecordRun) -> EncodedSegment) {
        self.run = run
        work = encode
    }

    package func encode() -> EncodedSegment { work(run) }
}
