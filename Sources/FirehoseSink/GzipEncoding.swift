import DurableStorage
import FirehoseWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `GZIP`: one gzip member per object. Each segment is a run of raw deflate ending in a sync flush, so
/// the bytes so far always decompress on their own and segments compressed on different cores join
/// into one member; the trailer's CRC-32 is combined from the segments'.
struct GzipEncoding: ObjectEncoding {
    var level: Int32

    var name: String { DeliveryStreamSettings.Compression.gzip.rawValue }

    func makeSegmentEncoder() -> any SegmentEncoder { GzipSegmentEncoder(level: level) }

    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]? {
        try? Gzip.decompressPrefix(stored, limit: limit)
    }

    /// One deflate stream finished in one go, as `gzip` itself writes it.
    func encodeWhole(_ content: [UInt8]) throws(FileSystemError) -> [UInt8] {
        guard let compressor = try? GzipCompressor(level: level) else {
            throw FileSystemError(operation: "deflateInit", path: "(recovered buffer)", errno: ENOMEM)
        }
        compressor.append(content)
        compressor.finish()
        return compressor.takeOutput()
    }
}

/// Small segments are compressed on the actor by one serial deflater that keeps its history, which
/// for a stream of small requests costs no more than one continuous deflate stream. Large ones become
/// jobs with a fresh deflater primed with the 32 KiB of content before them (what `pigz` does), so
/// joined in order they compress as well as a serial stream.
final class GzipSegmentEncoder: SegmentEncoder {
    private let level: Int32
    /// The last 32 KiB of content (before compression), the dictionary of the next parallel segment.
    private var history = HistoryRing()
    private var serialDeflater: RawDeflater?
    /// False once a parallel segment was encoded after the serial deflater's last one: its history
    /// no longer ends where the content does.
    private var serialDeflaterInStep = true

    init(level: Int32) {
        self.level = level
    }

    var header: [UInt8] { GzipMember.header }

    func encode(_ run: RecordRun, inParallel parallel: Bool) -> PlannedSegment {
        // In place: a copy of the ring would copy its 32 KiB on every request.
        defer { history.append(run) }
        if parallel {
            serialDeflaterInStep = false
            return .job(
                SegmentJob(run: run) { [level, dictionary = history.bytes] run in
                    run.withContent { content in
                        let stored = DeflaterPool.shared.withDeflater(level: level) { deflater in
                            dictionary.withUnsafeBytes { deflater.reset(dictionary: $0) }
                            return deflater.compress(content)
                        }
                        return EncodedSegment(stored: stored, content: content, records: run.range.count)
                    }
                })
        }
        let deflater: RawDeflater
        if let serialDeflater, serialDeflaterInStep {
            deflater = serialDeflater
        } else {
            guard let made = serialDeflater ?? (try? RawDeflater(level: level)) else {
                preconditionFailure("deflateInit failed: out of memory")
            }
            history.bytes.withUnsafeBytes { made.reset(dictionary: $0) }
            deflater = made
            serialDeflater = made
            serialDeflaterInStep = true
        }
        return .ready(
            run.withContent { content in
                EncodedSegment(stored: deflater.compress(content), content: content, records: run.range.count)
            })
    }

    func trailer(contentCRC: UInt32, contentLength: Int, storedLength: Int) -> [UInt8] {
        GzipMember.trailer(crc: contentCRC, length: contentLength)
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
        run.withContent { content in append(content) }
    }

    /// The history, oldest byte first.
    var bytes: [UInt8] {
        if filled < storage.count { return Array(storage[0..<end]) }
        return Array(storage[end...] + storage[..<end])
    }
}
