import FirehoseWire
import Synchronization

/// The bytes one request adds to one staging buffer, encoded and ready to be written at its turn.
struct EncodedSegment: Sendable {
    /// What goes into the data file (compressed for GZIP).
    var stored: [UInt8]
    /// CRC-32 of `stored`: the journal's check.
    var storedCRC: UInt32
    /// CRC-32 and length of the content before compression: the gzip trailer's.
    var contentCRC: UInt32
    var contentLength: Int
    var records: Int
}

/// A slice of one request's records bound for one buffer: records `range` of `records`, each followed
/// by a newline when `newline`.
struct RecordRun: Sendable {
    var records: RecordBatch
    var range: Range<Int>
    var newline: Bool

    var contentLength: Int {
        guard !range.isEmpty else { return 0 }
        return records.range(of: range.upperBound - 1).upperBound - records.range(of: range.lowerBound).lowerBound
            + (newline ? range.count : 0)
    }

    /// Calls `body` with the content (records and delimiters) as one contiguous buffer; without
    /// delimiters the batch's own storage is used as is.
    func withContent<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard !range.isEmpty else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        if newline { return joined().withUnsafeBytes(body) }
        return records.storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[storageRange])) }
    }

    /// The content as an array of its own, copied once.
    func content() -> [UInt8] {
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

/// Compression of a large request's share of a GZIP buffer, run by the request's own task off the
/// stream's actor, so one stream compresses on every core: the segment is primed with the 32 KiB of
/// content before it (`dictionary`), so joined in ticket order the segments form one deflate stream
/// that compresses as well as a serial one.
struct SegmentJob: Sendable {
    enum Encoding: Sendable {
        case gzip(level: Int32, dictionary: [UInt8])
        case uncompressed
    }

    var run: RecordRun
    var encoding: Encoding

    func encode() -> EncodedSegment {
        switch encoding {
        case .uncompressed:
            // Stored as is: the content array is what gets written, without a second copy.
            let content = run.content()
            let crc = content.withUnsafeBytes { Gzip.crc32($0) }
            return EncodedSegment(
                stored: content, storedCRC: crc, contentCRC: crc, contentLength: content.count,
                records: run.range.count)
        case .gzip(let level, let dictionary):
            return run.withContent { content in
                let stored = DeflaterPool.shared.withDeflater(level: level) { deflater in
                    dictionary.withUnsafeBytes { deflater.reset(dictionary: $0) }
                    return deflater.compress(content)
                }
                return EncodedSegment(
                    stored: stored, storedCRC: stored.withUnsafeBytes { Gzip.crc32($0) },
                    contentCRC: Gzip.crc32(content), contentLength: content.count, records: run.range.count)
            }
        }
    }
}

/// Deflaters for segment jobs, reused because setting one up allocates and clears ~270 KiB. Holds
/// at most a few per level: there are only as many jobs at once as cooperative threads.
final class DeflaterPool: Sendable {
    static let shared = DeflaterPool()
    private static let keptPerLevel = 4

    private struct Idle: @unchecked Sendable {
        // A deflater in the pool is owned by the pool alone; one taken out, by its taker alone.
        var byLevel: [Int32: [RawDeflater]] = [:]
    }

    private let idle = Mutex(Idle())

    func withDeflater<R>(level: Int32, _ body: (RawDeflater) -> R) -> R {
        let reused = idle.withLock { $0.byLevel[level]?.popLast() }
        guard let deflater = reused ?? (try? RawDeflater(level: level)) else {
            preconditionFailure("deflateInit failed: out of memory")
        }
        let result = body(deflater)
        let returned = UncheckedDeflater(deflater)
        idle.withLock { idle in
            if idle.byLevel[level, default: []].count < Self.keptPerLevel {
                idle.byLevel[level, default: []].append(returned.deflater)
            }
        }
        return result
    }

    private struct UncheckedDeflater: @unchecked Sendable {
        let deflater: RawDeflater
        init(_ deflater: RawDeflater) { self.deflater = deflater }
    }
}

/// The last 32 KiB of a buffer's content, kept as a ring so small requests pay only for the bytes
/// they add; linearized only when a segment needs it as its dictionary.
struct HistoryRing {
    private var storage = [UInt8](repeating: 0, count: RawDeflater.windowSize)
    private var end = 0
    private var filled = 0

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        let capacity = storage.count
        let kept = bytes.count > capacity ? UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - capacity)...]) : bytes
        storage.withUnsafeMutableBytes { ring in
            var offset = 0
            while offset < kept.count {
                let count = min(kept.count - offset, capacity - end)
                UnsafeMutableRawBufferPointer(rebasing: ring[end..<end + count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: kept[offset..<offset + count]))
                offset += count
                end = (end + count) % capacity
            }
        }
        filled = min(capacity, filled + kept.count)
    }

    /// Appends the content of `run` (only its last 32 KiB are copied).
    mutating func append(_ run: RecordRun) {
        var first = run.range.upperBound
        var length = 0
        while first > run.range.lowerBound && length < storage.count {
            first -= 1
            length += run.records.range(of: first).count + (run.newline ? 1 : 0)
        }
        run.records.storage.withUnsafeBytes { storage in
            for index in first..<run.range.upperBound {
                append(UnsafeRawBufferPointer(rebasing: storage[run.records.range(of: index)]))
                if run.newline { withUnsafeBytes(of: UInt8(ascii: "\n")) { append($0) } }
            }
        }
    }

    /// The history, oldest byte first.
    var bytes: [UInt8] {
        if filled < storage.count { return Array(storage[0..<end]) }
        return Array(storage[end...] + storage[..<end])
    }
}
