import FirehoseWire
import Synchronization

/// The bytes one request adds to one staging buffer, encoded and ready to be written at its turn.
package struct EncodedSegment: Sendable {
    /// What goes into the data file (compressed for GZIP).
    package var stored: [UInt8]
    /// CRC-32 of `stored`: the journal's check.
    package var storedCRC: UInt32
    /// CRC-32 and length of the content before compression: the gzip trailer's.
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
            stored: stored, storedCRC: stored.withUnsafeBytes { Gzip.crc32($0) }, contentCRC: Gzip.crc32(content),
            contentLength: content.count, records: records)
    }
}

/// A slice of one request's records bound for one buffer: records `range` of `records`, each followed
/// by a newline when `newline`.
package struct RecordRun: Sendable {
    package var records: RecordBatch
    package var range: Range<Int>
    package var newline: Bool

    package init(records: RecordBatch, range: Range<Int>, newline: Bool) {
        self.records = records
        self.range = range
        self.newline = newline
    }

    package var contentLength: Int {
        guard !range.isEmpty else { return 0 }
        return records.range(of: range.upperBound - 1).upperBound - records.range(of: range.lowerBound).lowerBound
            + (newline ? range.count : 0)
    }

    /// Calls `body` with the content (records and delimiters) as one contiguous buffer; without
    /// delimiters the batch's own storage is used as is.
    package func withContent<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard !range.isEmpty else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        if newline { return joined().withUnsafeBytes(body) }
        return records.storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[storageRange])) }
    }

    /// The content as an array of its own, copied once.
    package func content() -> [UInt8] {
        guard !range.isEmpty else { return [] }
        return newline ? joined() : Array(records.storage[storageRange])
    }

    /// Where the run's records lie, back to back, in the batch's storage (not empty runs).
    private var storageRange: Range<Int> {
        records.range(of: range.lowerBound).lowerBound..<records.range(of: range.upperBound - 1).upperBound
    }

    /// Records and delimiters copied into one new array.
    private func joined() -> [UInt8] {
        records.storage.withUnsafeBytes { storage in
            [UInt8](unsafeUninitializedCapacity: contentLength) { typed, initialized in
                let buffer = UnsafeMutableRawBufferPointer(typed)
                var offset = 0
                for index in range {
                    let record = records.range(of: index)
                    let target = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + record.count])
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[record]))
                    offset += record.count
                    buffer[offset] = UInt8(ascii: "\n")
                    offset += 1
                }
                initialized = offset
            }
        }
    }
}

/// A segment's encoding, run by the request's own task off the stream's actor, so one stream's
/// compression spreads over every core.
package struct SegmentJob: Sendable {
    package var run: RecordRun
    private let work: @Sendable (RecordRun) -> EncodedSegment

    package init(run: RecordRun, encode: @escaping @Sendable (RecordRun) -> EncodedSegment) {
        self.run = run
        work = encode
    }

    package func encode() -> EncodedSegment { work(run) }
}
